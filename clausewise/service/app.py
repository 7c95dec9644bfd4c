"""The FastAPI application: one :class:`Service` per process holds the settings, the models (loaded
lazily and once, shared by every tenant), the API keys, the job store and the runner.

    app = create_app(load_settings())
    uvicorn.run(app, host="127.0.0.1", port=8000)

The lifespan starts the job runner (accounting for jobs a stopped server left running) and stops
it; nothing heavy happens at import or at start-up: the first request that needs a model loads it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from clausewise.core.config import Settings
from clausewise.runtime import ModelHub
from clausewise.service import errors
from clausewise.service.docs import mount_docs
from clausewise.service.gate import FORM_ALLOWANCE, RequestGate
from clausewise.service.limits import BodyLimit
from clausewise.service.request_spans import RequestSpans
from clausewise.service.state import RuntimeFactory, Service, default_runtime

log = logging.getLogger(__name__)


def create_app(
    settings: Settings, *, runtime_factory: RuntimeFactory = default_runtime, hub: ModelHub | None = None
) -> FastAPI:
    """The API over ``settings``; ``runtime_factory`` builds the runtime of each request and job
    (the default: real models), all sharing one ``hub`` of loaded models (a new one by default)."""
    service = Service(settings, hub=hub or ModelHub(), runtime_factory=runtime_factory)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.runner.start()
        async with _mcp_lifespan(app):
            yield
        service.runner.stop()
        service.close()

    app = FastAPI(
        title="Clausewise",
        summary="Offline, cited question answering over long legal contracts.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # served from the package by mount_docs, not from a CDN
        redoc_url=None,
        # FastAPI's own spans and logs record the URL's path and query string (a search's query is
        # contract content) and exception messages: the service's spans are RequestSpans', which
        # name the route template and keep content out unless tracing.capture_content says so
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    app.state.service = service
    errors.install(app)
    app.add_middleware(
        BodyLimit,
        limit=int(settings.service.max_request_mb * 1024 * 1024),
        upload_limit=int(settings.parsing.max_file_mb * 1024 * 1024) + FORM_ALLOWANCE,
    )
    app.add_middleware(RequestGate, service=service)  # before any body is read
    app.add_middleware(RequestSpans)  # outermost: refused requests are traced too
    from clausewise.service.routes import (
        audit,
        changes,
        contracts,
        health,
        jobs,
        openai_chat,
        playbooks,
        questions,
        reviews,
        rooms,
    )

    for module in (
        health,
        contracts,
        changes,
        questions,
        reviews,
        playbooks,
        rooms,
        jobs,
        openai_chat,
        audit,
    ):
        app.include_router(module.router)
    from clausewise.service.mcp_server import mount_mcp

    mount_mcp(app)
    mount_docs(app)
    mount_page(app)
    return app


def mount_page(app: FastAPI) -> None:
    """The web page at ``/``: static files shipped in the package (no build step, nothing fetched
    from elsewhere); it talks to the API like any other client."""
    static = Path(__file__).with_name("static")
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(static / "index.html", headers={"Cache-Control": "no-cache"})


@asynccontextmanager
async def _mcp_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Run the MCP session manager for as long as the app runs (when MCP is mounted)."""
    manager = getattr(app.state, "mcp_lifespan", None)
    if manager is None:
        yield
        return
    async with manager():
        yield
