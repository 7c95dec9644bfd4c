"""The checks a request passes before any of its body is read, in this order:

1. **Host** (421): a loopback server answers only to loopback names (and its own address, and the
   names in ``service.allowed_hosts``), so a page on another site that rebinds its DNS name to
   127.0.0.1 cannot read the library. A server bound to every address cannot list the names it is
   reached by; it answers any unless ``service.allowed_hosts`` lists them (its keys protect it).
2. **Origin** (403): a browser's cross-site form or script may not change anything (ingest,
   delete, ask): a request other than GET/HEAD/OPTIONS whose ``Origin`` is not the server itself
   is refused. Clients that are not browsers send no ``Origin`` and are not affected.
3. **Key** (401): with keys configured, an API request (``/v1/...``, ``/mcp``) without a valid key
   is refused before its body is read, so nobody without a key can make the server buffer or spool
   anything. The routes still resolve the tenant from the key themselves.
4. **Announced size** (413): an upload whose ``Content-Length`` is over the file limit (plus room
   for its form fields) is refused before it is spooled.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from opentelemetry import trace
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from clausewise.core.errors import ClausewiseError
from clausewise.core.tracing import annotate
from clausewise.service.audit import current_actor
from clausewise.service.auth import (
    GATED_TENANT,
    ServiceMiddleware,
    caller,
    key_in,
    key_refused,
    scope_headers,
)
from clausewise.service.errors import envelope

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
EVERY_ADDRESS = frozenset({"0.0.0.0", "::", ""})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Room for an upload's form fields and multipart framing beyond the file itself.
FORM_ALLOWANCE = 1024 * 1024


def host_name(value: str) -> str:
    """The name of a ``Host`` header value (``[::1]:8000`` -> ``::1``, ``Example.org:80`` ->
    ``example.org``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_allowed(name: str, bound: str, allowed: list[str]) -> bool:
    """Whether a server bound to ``bound`` answers requests for host ``name``."""
    listed = {host_name(a) for a in allowed}
    if name in LOOPBACK_NAMES or "*" in listed or name in listed:
        return True
    if bound in EVERY_ADDRESS:
        return not listed  # reached by names we cannot know, unless the operator listed them
    return name == host_name(bound)


class RequestGate(ServiceMiddleware):
    """Host, Origin, key and announced size, checked on the headers alone (see the module)."""

    async def on_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = scope_headers(scope)
        actor = "local"  # whom the audit log names: the key's id once the key is checked
        tenant: str | None = None
        refusal = self._place_refusal(scope, headers)
        if refusal is None and (scope.get("path", "").startswith("/v1/") or scope.get("path") == "/mcp"):
            try:
                tenant, actor = await asyncio.to_thread(caller, self.service, key_in(headers))
            except ClausewiseError as error:
                refusal = key_refused(error)
        if tenant is not None:
            scope.setdefault("state", {})[GATED_TENANT] = tenant  # the routes' Tenant, looked up once
            annotate(trace.get_current_span(), {"clausewise.tenant": tenant, "clausewise.actor": actor})
        refusal = refusal or self._size_refusal(headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        token = current_actor.set(actor)
        try:
            await self.app(scope, receive, send)
        finally:
            current_actor.reset(token)

    def _place_refusal(self, scope: Scope, headers: dict[str, str]) -> JSONResponse | None:
        """Host, then Origin."""
        settings = self.service.settings
        host = headers.get("host", "")
        if not host_allowed(host_name(host), settings.service.host, settings.service.allowed_hosts):
            return _refuse(
                421,
                "host_not_allowed",
                "this server does not answer for that host name",
                "open it as http://127.0.0.1:<port>, or add the name to service.allowed_hosts",
            )
        origin = headers.get("origin")
        if origin is not None and scope["method"] not in SAFE_METHODS and not _same_site(origin, host):
            return _refuse(
                403,
                "cross_origin_refused",
                "a page from another site may not change anything here",
                "send the request from the service's own page, or from a client that is not a browser",
            )
        return None

    def _size_refusal(self, headers: dict[str, str]) -> JSONResponse | None:
        """An upload announcing more than the file limit."""
        settings = self.service.settings
        declared = headers.get("content-length", "")
        limit = int(settings.parsing.max_file_mb * 1024 * 1024) + FORM_ALLOWANCE
        multipart = headers.get("content-type", "").lower().startswith("multipart/")
        if multipart and declared.isdigit() and int(declared) > limit:
            return _refuse(
                413,
                "file_too_large",
                f"the upload is over the {settings.parsing.max_file_mb:g} MB allowed for a file",
                "split the contract, or raise parsing.max_file_mb on the server",
            )
        return None


def _same_site(origin: str, host: str) -> bool:
    """Whether a browser's ``Origin`` is the server it is sending to (``null``: never)."""
    return origin != "null" and urlsplit(origin).netloc.lower() == host.strip().lower()


def _refuse(status: int, code: str, message: str, hint: str) -> JSONResponse:
    return JSONResponse(envelope(code, message, hint), status_code=status, headers={"Connection": "close"})
