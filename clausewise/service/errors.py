"""Every refusal of the API is one JSON shape with the right status:

    {"error": {"code": "contract_not_found", "message": "...", "hint": "..."}}

The message and hint are the same words the CLI prints for the same error. Bad input is never a
500 and never a traceback; an unexpected failure is a 500 with the same envelope and is logged.
"""

from __future__ import annotations

import logging
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from clausewise.core import errors as domain

log = logging.getLogger(__name__)

#: The status of each typed error (the first matching class wins: subclasses before bases).
STATUS: tuple[tuple[type[domain.ClausewiseError], int], ...] = (
    (domain.FileTooLarge, 413),
    (domain.UnsupportedFileType, 415),
    (domain.OcrUnavailable, 503),
    (domain.InputError, 422),
    (domain.ContractNotFound, 404),
    (domain.VersionNotFound, 404),
    (domain.ThreadNotFound, 404),
    (domain.IngestInProgress, 409),
    (domain.ContractChanged, 409),
    (domain.LiveVersion, 409),
    (domain.PlaybookNotFound, 404),
    (domain.ProvisionNotFound, 404),
    (domain.PlaybookConflict, 409),
    (domain.IndexCorrupt, 500),
    (domain.ModelError, 503),
    (domain.YamlTooComplex, 422),
    (domain.ConfigError, 400),
    (domain.BenchDataMissing, 404),
)


class ApiError(domain.ClausewiseError):
    """A refusal decided by the API itself (authentication, limits, unknown jobs ...)."""

    def __init__(self, status: int, code: str, message: str, *, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.code = code


def code_of(kind: type[domain.ClausewiseError]) -> str:
    """``ContractNotFound`` -> ``contract_not_found``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()


def error_code(error: domain.ClausewiseError) -> str:
    return error.code if isinstance(error, ApiError) else code_of(type(error))


def _subclasses(kind: type[domain.ClausewiseError]) -> list[type[domain.ClausewiseError]]:
    return [kind, *(sub for child in kind.__subclasses__() for sub in _subclasses(child))]


def status_for_code(code: str) -> int:
    """The status of the typed error whose code is ``code`` (500 for an unknown one): how a job's
    stored error is answered when the request waited for the job."""
    kind = next((k for k in _subclasses(domain.ClausewiseError) if code_of(k) == code), None)
    if kind is None or kind is ApiError:
        return 500
    return next((status for known, status in STATUS if issubclass(kind, known)), 500)


def status_of(error: domain.ClausewiseError) -> int:
    if isinstance(error, ApiError):
        return error.status
    return next((status for kind, status in STATUS if isinstance(error, kind)), 500)


#: An absolute file system path of two or more parts (what a library may put in its message).
_SERVER_PATH = re.compile(r"(?<![\w.:/~-])/(?:[^\s/'\"()<>,;:|]+/)+([^\s/'\"()<>,;:|]*)")
#: First parts of the API's own routes, which hints name on purpose.
_ROUTES = ("v1/", "docs", "mcp", "static/", "openapi.json", "healthz", "readyz")


def without_server_paths(text: str) -> str:
    """``text`` with every server path replaced by its last part (the file's name): no response
    shows where anything is on the server's disk. The API's own routes are left as they are."""

    def name_only(match: re.Match[str]) -> str:
        whole = match.group(0)
        return whole if whole[1:].startswith(_ROUTES) else match.group(1) or "(a server folder)"

    return _SERVER_PATH.sub(name_only, text)


def envelope(code: str, message: str, hint: str = "") -> dict[str, dict[str, str]]:
    return {
        "error": {"code": code, "message": without_server_paths(message), "hint": without_server_paths(hint)}
    }


#: The hint of every "no such contract" (the same whatever the reference was, and whether or not
#: anything exists under it elsewhere).
NOT_YOURS_HINT = "see GET /v1/contracts for this key's contracts; fields and paths take contract ids"


def error_body(error: domain.ClausewiseError) -> dict[str, dict[str, str]]:
    """The envelope of a typed error: its message as the CLI words it (file name included)."""
    where = f"{error.path.name}: " if error.path is not None else ""
    hint = NOT_YOURS_HINT if isinstance(error, domain.ContractNotFound) else error.hint
    return envelope(error_code(error), f"{where}{error.message}", hint)


def error_text(error: domain.ClausewiseError) -> str:
    """``str(error)`` as a response may show it (a batch row's error): no server path."""
    return without_server_paths(str(error))


def _field(location: tuple) -> str:
    """``("body", "question")`` -> ``question``: where in the request a problem is."""
    return ".".join(str(part) for part in location if part != "body") or "body"


def _response(status: int, body: dict, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


#: What the framework's own refusals mean to a client, and what to do (code, message, hint).
_HTTP_PROBLEMS: dict[int, tuple[str, str, str]] = {
    400: (
        "malformed_json",
        "the request body could not be read: it must be UTF-8 JSON, nested at most a few hundred levels",
        "send a JSON object encoded as UTF-8 (see the API documentation at /docs for the fields)",
    ),
    404: ("not_found", "", "see the API documentation at /docs"),
    405: ("method_not_allowed", "", "see the API documentation at /docs for the methods of each path"),
    413: ("payload_too_large", "", "send a smaller request"),
}


def _http_problem(status: int, detail: str) -> tuple[str, str, str]:
    """The envelope's fields for a refusal raised by the framework rather than by us: a body it
    could not parse (bytes that are not UTF-8, JSON nested thousands deep) is ``malformed_json``
    like any other unreadable body, and every refusal carries a hint."""
    code, message, hint = _HTTP_PROBLEMS.get(
        status, (f"http_{status}", "", "see the API documentation at /docs, or try again")
    )
    return code, message or detail, hint


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the envelope."""

    @app.exception_handler(domain.ClausewiseError)
    async def _typed(request: Request, error: domain.ClausewiseError) -> JSONResponse:
        status = status_of(error)
        if status >= 500:
            log.warning("%s %s: %s", request.method, request.url.path, error, extra={"status": status})
        headers = {"Retry-After": "5"} if status in (429, 503) else None
        if status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return _response(status, error_body(error), headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = error.errors()
        if any(p.get("type") == "json_invalid" for p in problems):
            return _response(
                400, envelope("malformed_json", "the request body is not valid JSON", "send a JSON object")
            )
        described = "; ".join(f"{_field(p.get('loc', ()))}: {p.get('msg', '')}" for p in problems[:5])
        return _response(
            422, envelope("invalid_request", described, "see the API documentation at /docs for the fields")
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, error: StarletteHTTPException) -> JSONResponse:
        code, message, hint = _http_problem(error.status_code, str(error.detail))
        if error.status_code == 400 and "multipart/" in request.headers.get("content-type", ""):
            code, message = "malformed_form", "the multipart form of the request could not be read"
            hint = "send multipart/form-data with the file in a 'file' part (see /docs)"
        return _response(error.status_code, envelope(code, message, hint), getattr(error, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected failure on %s %s", request.method, request.url.path)
        return _response(
            500,
            envelope(
                "internal_error", "the server failed on this request", "it was logged; try again or report it"
            ),
        )
