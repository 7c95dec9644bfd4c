"""Who is calling: the API key of the request names its tenant, and every route works inside it.

Keys come as ``Authorization: Bearer <key>`` (what OpenAI and MCP clients send) or ``X-API-Key``.
With no key configured the server is a single-user local service: every request belongs to the
configured tenant, and ``clausewise serve`` refuses to listen beyond loopback unless told
``--insecure-no-auth``. Once a key exists, every request needs a valid one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from fastapi import Depends, Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from clausewise.core.errors import ClausewiseError
from clausewise.runtime import Runtime
from clausewise.service.errors import ApiError, error_body, status_of
from clausewise.service.state import Service


class ServiceMiddleware:
    """An ASGI middleware of the service that looks at its HTTP requests (:meth:`on_request`);
    anything else (the server's lifespan) passes through untouched."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.on_request(scope, receive, send)

    async def on_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def key_refused(error: ClausewiseError) -> JSONResponse:
    """The answer to a request whose key is missing, unknown or revoked (401, the envelope)."""
    return JSONResponse(
        error_body(error), status_code=status_of(error), headers={"WWW-Authenticate": "Bearer"}
    )


def service_of(request: Request) -> Service:
    return request.app.state.service


def scope_headers(scope: Scope) -> dict[str, str]:
    """An ASGI request's headers by lower-case name (for checks that run before a route)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def key_in(headers: Mapping[str, str]) -> str | None:
    """The API key a request presents: ``Authorization: Bearer`` first, else ``X-API-Key``."""
    header = headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return headers.get("x-api-key") or None


def presented_key(request: Request) -> str | None:
    return key_in(request.headers)


def caller(service: Service, key: str | None) -> tuple[str, str]:
    """The tenant a request with ``key`` acts for and whom the audit log names: the key's id, or
    ``local`` on a server without keys (401 when keys are required and it is not valid)."""
    if not service.keys.active():
        return service.settings.paths.tenant, "local"
    if key is None:
        raise ApiError(
            401,
            "missing_api_key",
            "this server requires an API key",
            hint="send 'Authorization: Bearer <key>' (create one with `clausewise keys create --tenant T`)",
        )
    info = service.keys.info_of(key)
    if info is None:
        raise ApiError(
            401, "invalid_api_key", "the API key is not valid", hint="check the key, or create a new one"
        )
    return info.tenant, info.id


def tenant_for(service: Service, key: str | None) -> str:
    """The tenant a request with ``key`` acts for (see :func:`caller`)."""
    return caller(service, key)[0]


#: Where the request gate leaves the tenant it learned from the key (the request's ``state``), so a
#: route does not look the key up a second time.
GATED_TENANT = "clausewise_tenant"


def authenticated_tenant(request: Request) -> str:
    gated = request.scope.get("state", {}).get(GATED_TENANT)
    return gated if gated is not None else tenant_for(service_of(request), presented_key(request))


def tenant_runtime(request: Request, tenant: Annotated[str, Depends(authenticated_tenant)]) -> Runtime:
    return service_of(request).runtime(tenant)


Tenant = Annotated[str, Depends(authenticated_tenant)]
TenantRuntime = Annotated[Runtime, Depends(tenant_runtime)]
CurrentService = Annotated[Service, Depends(service_of)]
