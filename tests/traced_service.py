"""``python -m tests.traced_service DATA_DIR PORT ENDPOINT``: the real app with tracing on, as
``clausewise serve`` installs it, exporting over OTLP/HTTP to ``ENDPOINT``, its language models
scripted (the rest real), on 127.0.0.1:PORT until it is sent SIGTERM; then the spans still
batched are sent. A process of its own, so the tracer provider it installs (one per process,
OpenTelemetry's rule) is not the test session's."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import uvicorn

from clausewise.core.tracing import install
from clausewise.service.app import create_app
from tests.fakes import LegalScript
from tests.live import scripted_runtimes
from tests.test_service import GOVERNING, service_settings


def main(data_dir: str, port: str, endpoint: str) -> None:
    settings = service_settings(
        Path(data_dir), tracing={"enabled": True, "endpoint": endpoint, "capture_content": True}
    )
    provider = install(settings.tracing)
    assert provider is not None
    app = create_app(settings, runtime_factory=scripted_runtimes(LegalScript(GOVERNING, "English law")))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=int(port), log_level="warning"))
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    try:
        server.run()
    finally:
        provider.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
