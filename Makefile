# Two entry points, both self-contained on a fresh machine:
#   make demo   set up, ingest the sample NDA and ask it a question with the embedded model
#   make test   set up (with test extras and tesseract), then run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DATA := .clausewise-demo
PIP := $(BIN)/pip install --disable-pip-version-check --progress-bar off -q
# Independent set-up steps (the venv, Phoenix's venv, the system packages) run at once.
MAKEFLAGS += --jobs=2

.PHONY: setup setup-test system-deps system-deps-test demo test test-fast lint bench-ingest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $@

# The tests also need the lab (lab/: the benchmarks and their helpers, the evaluation gate).
$(VENV)/.installed-test: pyproject.toml lab/pyproject.toml | $(BIN)/python
	$(PIP) -e ".[dev,st,small]" -e ./lab
	touch $(VENV)/.installed $@

setup: $(VENV)/.installed

# A real trace backend for the tracing test (Arize Phoenix from PyPI: an OTLP receiver with a
# REST API to read the spans back), in a venv of its own so its dependencies never meet ours.
PHOENIX_VENV := .venv-phoenix
$(PHOENIX_VENV)/bin/phoenix:
	$(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/pip install --disable-pip-version-check --progress-bar off -q arize-phoenix==20.26.1

setup-test: $(VENV)/.installed-test $(PHOENIX_VENV)/bin/phoenix

# System packages, installed with apt when missing and we may (root or sudo): tesseract (OCR of
# scanned pages); for the tests also Debian's chromium (the web page's browser tests: Playwright
# drives it, never downloading a browser of its own), redis-server (the Celery workers' tests) and
# LibreOffice's writer without a GUI (the playbook redlines' DOCX opened as Word users' other
# editor opens it).
APT_INSTALL = if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends

system-deps:
	@command -v tesseract >/dev/null 2>&1 || { $(APT_INSTALL) tesseract-ocr >/dev/null; }
	@tesseract --version 2>&1 | head -n 1

system-deps-test: system-deps
	@command -v chromium >/dev/null 2>&1 || { $(APT_INSTALL) chromium >/dev/null; }
	@chromium --version 2>/dev/null | head -n 1
	@command -v redis-server >/dev/null 2>&1 || { $(APT_INSTALL) redis-server >/dev/null; }
	@redis-server --version | cut -d' ' -f1-3
	@command -v soffice >/dev/null 2>&1 || { $(APT_INSTALL) libreoffice-writer-nogui >/dev/null; }
	@soffice --version 2>/dev/null | head -n 1

DEMO_QUESTION := How long must the Receiving Party keep the other party's information confidential, and what exceptions apply?

demo: setup system-deps
	$(BIN)/clausewise --data-dir $(DEMO_DATA) ingest examples/mutual-nda.pdf
	$(BIN)/clausewise --data-dir $(DEMO_DATA) tree mutual-nda --depth 2
	$(BIN)/clausewise --data-dir $(DEMO_DATA) ask mutual-nda "$(DEMO_QUESTION)"

# Two malloc arenas: the suite's many threads (servers, jobs, model runtimes) may otherwise each grow
# an arena of their own, which glibc rarely gives back to the system. Two test workers, a module
# each at a time (its fixtures, servers and models built once), the longest modules first: a test
# waiting on a server, a worker or a browser leaves a core to the other (tests/conftest.py).
PYTEST := MALLOC_ARENA_MAX=2 $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=25
test: setup-test system-deps-test
	$(PYTEST)

# The inner loop: the suite without its slow modules (live servers, workers, browsers, real-model
# runs, the gate), in a few minutes.
test-fast: setup-test
	$(PYTEST) -m "not slow"

lint: setup-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	PYTHONPATH=. $(BIN)/lint-imports

bench-ingest: setup-test system-deps
	$(BIN)/clausewise eval ingest --out bench-results/ingest.json

clean:
	rm -rf $(VENV) $(PHOENIX_VENV) $(DEMO_DATA) .pytest_cache build *.egg-info
