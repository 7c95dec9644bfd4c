"""Bounds on request bodies, counted as the bytes arrive, whatever the transfer encoding.

A JSON body (a question, a playbook, a list of contracts) is small: it is read here up to
``limit`` bytes before the app sees it, so a client cannot make the server hold gigabytes of one
in memory before any validation runs. An upload (multipart) streams through to the form parser,
which spools it to temporary files; its bytes are counted on the way and, past ``upload_limit``,
the app is told the client went away and the client gets 413. The request gate refuses an upload
that *announces* too much (``Content-Length``) before any of it is read; this catches one that
does not announce its size (``Transfer-Encoding: chunked``) or announces less than it sends.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from clausewise.service.errors import envelope


class BodyLimit:
    """413 in the error envelope for a body past its bound (see the module): ``limit`` bytes for
    a request that is not multipart, ``upload_limit`` for an upload."""

    def __init__(self, app: ASGIApp, limit: int, upload_limit: int) -> None:
        self.app = app
        self.limit = limit
        self.upload_limit = upload_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if headers.get(b"content-type", b"").lower().startswith(b"multipart/"):
            await self._stream_upload(scope, receive, send)
            return
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await _too_large(self.limit, False)(scope, receive, send)
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
                await _too_large(self.limit, False)(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], then=receive), send)

    async def _stream_upload(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the upload through, counting it; past the bound the app reads a disconnect (it
        stops spooling and deletes what it spooled) and whatever it would answer is replaced by
        413."""
        size = 0
        over = False
        started = False

        async def counted() -> Message:
            nonlocal size, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > self.upload_limit:
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def answered(message: Message) -> None:
            nonlocal started
            if over and not started:
                started = True
                await _too_large(self.upload_limit, True)(scope, _replay([]), send)
                return
            if over:
                return  # the app's own answer to the "disconnect": already replaced
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted, answered)
        if over and not started:  # the app ended without answering (it saw a disconnect)
            await _too_large(self.upload_limit, True)(scope, _replay([]), send)


def _too_large(limit: int, upload: bool) -> JSONResponse:
    megabytes = limit / (1024 * 1024)
    if upload:
        body = envelope(
            "file_too_large",
            f"the upload is over the {megabytes:g} MB allowed for a file and its form",
            "split the contract, or raise parsing.max_file_mb on the server",
        )
    else:
        body = envelope(
            "payload_too_large",
            f"the request body is over the {megabytes:g} MB allowed for a request that is not an upload",
            "send less (split a long list of contracts), or raise service.max_request_mb on the server",
        )
    return JSONResponse(body, status_code=413, headers={"Connection": "close"})


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
