"""A bound on request bodies other than uploads. JSON bodies (a question, a playbook, a list of
contracts) are small; without a bound a client could make the server hold gigabytes of one in
memory before any validation runs. Uploads (multipart) are bounded by the file size limit as they
are streamed to disk, so they pass through here unread."""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from clausewise.service.errors import envelope


class BodyLimit:
    """Reads a request body that is not multipart up to ``limit`` bytes before the app sees it:
    past it, 413 ``payload_too_large`` in the error envelope (announced or streamed alike)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if headers.get(b"content-type", b"").lower().startswith(b"multipart/"):
            await self.app(scope, receive, send)
            return
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([message]), send)  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], then=receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        megabytes = self.limit / (1024 * 1024)
        response = JSONResponse(
            envelope(
                "payload_too_large",
                f"the request body is over the {megabytes:g} MB allowed for a request that is not an upload",
                "send less (split a long list of contracts), or raise service.max_request_mb on the server",
            ),
            status_code=413,
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)


def _replay(messages: list[Message], then: Receive | None = None) -> Receive:
    """A receive that gives ``messages`` first, then whatever ``then`` gives (a disconnect)."""
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive
