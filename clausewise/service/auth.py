"""Who is calling: the API key of the request names its tenant, and every route works inside it.

Keys come as ``Authorization: Bearer <key>`` (what OpenAI and MCP clients send) or ``X-API-Key``.
With no key configured the server is a single-user local service: every request belongs to the
configured tenant, and ``clausewise serve`` refuses to listen beyond loopback unless told
``--insecure-no-auth``. Once a key exists, every request needs a valid one.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from clausewise.runtime import Runtime
from clausewise.service.errors import ApiError
from clausewise.service.state import Service


def service_of(request: Request) -> Service:
    return request.app.state.service


def presented_key(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("x-api-key") or None


def tenant_for(service: Service, key: str | None) -> str:
    """The tenant a request with ``key`` acts for (401 when keys are required and it is not valid)."""
    if not service.keys.active():
        return service.settings.paths.tenant
    if key is None:
        raise ApiError(
            401,
            "missing_api_key",
            "this server requires an API key",
            hint="send 'Authorization: Bearer <key>' (create one with `clausewise keys create --tenant T`)",
        )
    tenant = service.keys.tenant_of(key)
    if tenant is None:
        raise ApiError(
            401, "invalid_api_key", "the API key is not valid", hint="check the key, or create a new one"
        )
    return tenant


def authenticated_tenant(request: Request) -> str:
    return tenant_for(service_of(request), presented_key(request))


def tenant_runtime(request: Request, tenant: Annotated[str, Depends(authenticated_tenant)]) -> Runtime:
    return service_of(request).runtime(tenant)


Tenant = Annotated[str, Depends(authenticated_tenant)]
TenantRuntime = Annotated[Runtime, Depends(tenant_runtime)]
CurrentService = Annotated[Service, Depends(service_of)]
