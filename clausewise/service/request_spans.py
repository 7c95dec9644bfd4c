"""A span per HTTP request (OpenTelemetry's HTTP server conventions): method, route template,
status; the request gate adds the tenant once the key has named it. Outermost of the middleware,
so refused requests are traced too; a streamed response's span lasts until its stream ends.

The route template (``/v1/contracts/{contract_id}/ask``), never the path: contract ids are
derived from file names, which may name a party."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from clausewise.core.tracing import tracer


class RequestSpans:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        with tracer().start_as_current_span(
            method, kind=trace.SpanKind.SERVER, attributes={"http.request.method": method}
        ) as current:
            status: dict[str, Any] = {}

            async def watched(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status["code"] = message["status"]
                await send(message)

            try:
                await self.app(scope, receive, watched)
            finally:
                route = getattr(scope.get("route"), "path", None)
                if route:
                    current.update_name(f"{method} {route}")
                    current.set_attribute("http.route", route)
                if "code" in status:
                    current.set_attribute("http.response.status_code", status["code"])
                    if status["code"] >= 500:
                        current.set_status(trace.Status(trace.StatusCode.ERROR))
