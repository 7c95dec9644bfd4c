"""The API's documentation at ``/docs``, served entirely by this server: Swagger UI's files come
from the ``swagger-ui-bundle-v2`` package (Swagger UI 5, which reads the OpenAPI 3.1 that
FastAPI writes), never from a CDN, so the page works on a machine with no network. ReDoc, which
would need a CDN, is off; ``/openapi.json`` is served as always."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs/assets"


def mount_docs(app: FastAPI) -> None:
    """``/docs`` and its assets (the app is created with ``docs_url=None, redoc_url=None``)."""
    from swagger_ui_bundle import swagger_ui_path

    app.mount(ASSETS, StaticFiles(directory=Path(str(swagger_ui_path))), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title}: API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            # no "valid" badge: it would send the document to an online validator
            swagger_ui_parameters={"validatorUrl": None},
        )
