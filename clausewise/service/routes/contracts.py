"""Contracts: upload (an ingest job, or the existing contract for the same bytes and settings),
list, show, tree, text of a span, search (retrieval only, no model), the original file, delete."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import uuid
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import FileResponse

from clausewise.core.domain import FileType
from clausewise.core.errors import EmptyDocument, FileTooLarge
from clausewise.core.results import Passage
from clausewise.retrieval import SpanSearch
from clausewise.runtime import Runtime
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.errors import ApiError
from clausewise.service.schemas import (
    ERROR_RESPONSES,
    ContractDetail,
    ContractPages,
    ContractSummary,
    ContractTree,
    DefinedTerm,
    Highlight,
    HighlightPage,
    PageView,
    TextSpan,
    TreeNode,
    UnresolvedReference,
    Upload,
)
from clausewise.service.tasks import uploads_dir
from clausewise.service.work import submit
from tools.highlight import highlight
from tools.parsing import check_document
from tools.rendering import page_png

router = APIRouter(prefix="/v1/contracts", tags=["contracts"], responses=ERROR_RESPONSES)

_CHUNK = 1 << 20
_MAX_TEXT = 200_000
_UNSAFE = re.compile(r"[^\w.\- ()]+")


def safe_name(name: str | None) -> str:
    """The base name of an uploaded file, without folders or characters a file system dislikes."""
    base = Path((name or "").replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .") or "contract"
    return cleaned[-150:]


async def store_upload(file: UploadFile, runtime: Runtime) -> tuple[Path, str]:
    """Copy the upload into the tenant's upload folder (refusing it past the size limit), named
    by its content so the same bytes are stored once; returns the path and the bytes' SHA-256."""
    limit = int(runtime.settings.parsing.max_file_mb * 1024 * 1024)
    folder = uploads_dir(runtime)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".partial-{uuid.uuid4().hex}"
    digest, size = hashlib.sha256(), 0
    try:
        with partial.open("wb") as handle:
            while chunk := await file.read(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise FileTooLarge(
                        f"the upload is over the {runtime.settings.parsing.max_file_mb:g} MB limit",
                        hint="split the file or raise parsing.max_file_mb on the server",
                    )
                digest.update(chunk)
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if size == 0:
            raise EmptyDocument("the upload is empty (0 bytes)", hint="choose the contract file again")
        sha = digest.hexdigest()
        target = folder / sha[:16] / safe_name(file.filename)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.replace(target)
        return target, sha
    finally:
        partial.unlink(missing_ok=True)


@router.post("", status_code=202, response_model=Upload)
async def upload(
    request: Request,
    response: Response,
    runtime: TenantRuntime,
    service: CurrentService,
    tenant: Tenant,
    file: Annotated[
        UploadFile, File(description="The contract: PDF (text or scanned), DOCX, TXT, MD, HTML.")
    ],
    contract_id: Annotated[str | None, Form(description="Its id (default: from the file name).")] = None,
    force: Annotated[bool, Form(description="Rebuild even if the same bytes were ingested.")] = False,
) -> Upload:
    """Upload a contract: refused at once when it is too large, empty, of the wrong type, corrupt or
    encrypted; otherwise an ingest job (202), or, for bytes already ingested with the same
    settings, the existing contract and no job (200)."""
    declared = int(request.headers.get("content-length") or 0)
    if declared > runtime.settings.parsing.max_file_mb * 1024 * 1024 + 1_000_000:
        raise FileTooLarge(
            f"the upload is over the {runtime.settings.parsing.max_file_mb:g} MB limit",
            hint="split the file or raise parsing.max_file_mb on the server",
        )
    path, sha = await store_upload(file, runtime)
    await asyncio.to_thread(check_document, path, runtime.settings.parsing)
    archivist = runtime.archivist()
    contract = contract_id or archivist.contract_id_for(path)
    if not force and archivist.current(contract, sha) is not None:
        response.status_code = 200
        return Upload(contract_id=contract, status="unchanged")
    job = submit(
        service,
        tenant,
        "ingest",
        {"path": str(path), "file_name": path.name, "contract_id": contract, "force": force},
    )
    return Upload(contract_id=contract, status="queued", job=job)


@router.get("", response_model=list[ContractSummary])
def list_contracts(runtime: TenantRuntime) -> list[ContractSummary]:
    """The contracts of this key's tenant."""
    return [ContractSummary.of(m) for m in runtime.store.manifests()]


@router.get("/{contract_id}", response_model=ContractDetail)
def show_contract(contract_id: str, runtime: TenantRuntime) -> ContractDetail:
    """Its manifest, defined terms and unresolved cross-references."""
    index = runtime.store.open(contract_id)
    try:
        return ContractDetail(
            manifest=index.manifest,
            defined_terms=[
                DefinedTerm(term=d.term, node_id=d.node_id, span=d.term_span) for d in index.definitions
            ],
            unresolved_references=[
                UnresolvedReference(text=r.text, source_node=r.source_node, span=r.span)
                for r in index.cross_references
                if r.target is None
            ],
        )
    finally:
        index.close()


def _preview(text: str, start: int, end: int, limit: int = 70) -> str:
    words = " ".join(text[start : min(end, start + limit + 20)].split())
    return words if len(words) <= limit else words[:limit].rsplit(" ", 1)[0] + "…"


@router.get("/{contract_id}/tree", response_model=ContractTree)
def contract_tree(contract_id: str, runtime: TenantRuntime) -> ContractTree:
    """The clause tree, nodes in document order (ids are legal paths: "12.4(a)", "Schedule B/3")."""
    index = runtime.store.open(contract_id)
    try:
        tree, text = index.tree, index.document.text
        return ContractTree(
            contract_id=index.contract_id,
            structure=tree.structure,
            root_id=tree.root_id,
            nodes=[
                TreeNode(
                    **node.model_dump(exclude={"own_end"}), preview=_preview(text, node.start, node.own_end)
                )
                for node in tree.walk()
            ],
        )
    finally:
        index.close()


@router.get("/{contract_id}/text", response_model=TextSpan)
def contract_text(
    contract_id: str,
    runtime: TenantRuntime,
    start: Annotated[int, Query(ge=0)] = 0,
    end: Annotated[int | None, Query(ge=0, description="Default: start + 200,000 or the end.")] = None,
) -> TextSpan:
    """The contract's normalized text from ``start`` to ``end`` (the offsets citations use)."""
    index = runtime.store.open(contract_id)
    try:
        text = index.document.text
        stop = min(len(text), start + _MAX_TEXT) if end is None else end
        if not start <= stop <= len(text) or stop - start > _MAX_TEXT:
            raise ApiError(
                422,
                "invalid_span",
                f"the span {start}-{stop} is not inside the text (0-{len(text)}) or is too long",
                hint="ask for a span inside the text, in pieces of at most 200,000 characters",
            )
        pages = index.document.pages_for((start, max(start + 1, stop))) if text else []
        return TextSpan(
            contract_id=index.contract_id, start=start, end=stop, pages=pages, text=text[start:stop]
        )
    finally:
        index.close()


@router.get("/{contract_id}/pages", response_model=ContractPages)
def contract_pages(contract_id: str, runtime: TenantRuntime) -> ContractPages:
    """The pages: size, how their text was read (text layer or OCR) and their character ranges."""
    index = runtime.store.open(contract_id)
    try:
        document = index.document
        images = document.file_type in (FileType.PDF, FileType.IMAGE) and index.original is not None
        return ContractPages(
            contract_id=index.contract_id,
            file_type=document.file_type.value,
            images=images,
            pages=[PageView.model_validate(page.model_dump()) for page in document.pages],
        )
    finally:
        index.close()


@router.get("/{contract_id}/pages/{number}/image", response_class=Response)
def page_image(
    contract_id: str,
    number: int,
    runtime: TenantRuntime,
    scale: Annotated[float, Query(gt=0.2, le=4.0, description="Pixels per PDF point.")] = 1.5,
) -> Response:
    """A page of the original PDF (or scan) as PNG, rendered at ``scale``."""
    index = runtime.store.open(contract_id)
    try:
        original = index.original
        version = index.path.name
        count = len(index.document.pages)
        image_file = index.document.file_type in (FileType.PDF, FileType.IMAGE)
    finally:
        index.close()
    if original is None or not image_file:
        raise ApiError(
            404, "no_page_images", "this contract has no page images", hint="show its text (GET .../text)"
        )
    if not 1 <= number <= count:
        raise ApiError(404, "no_such_page", f"the contract has pages 1-{count}", hint="ask for one of those")
    png = page_png(original, number, scale)
    headers = {"Cache-Control": "private, max-age=86400", "ETag": f'"{version}-{number}-{scale}"'}
    return Response(png, media_type="image/png", headers=headers)


@router.get("/{contract_id}/highlight", response_model=Highlight)
def span_highlight(
    contract_id: str,
    runtime: TenantRuntime,
    start: Annotated[int, Query(ge=0)],
    end: Annotated[int, Query(ge=1)],
) -> Highlight:
    """The rectangles that show the span ``start``-``end`` on its pages (one per line of text)."""
    index = runtime.store.open(contract_id)
    try:
        document = index.document
        if not start < end <= len(document.text):
            raise ApiError(
                422, "invalid_span", f"no span {start}-{end} in the text", hint="use a citation's span"
            )
        boxes = [HighlightPage(**vars(page)) for page in highlight(document, (start, end))]
        return Highlight(
            contract_id=index.contract_id,
            start=start,
            end=end,
            pages=document.pages_for((start, end)),
            boxes=boxes,
        )
    finally:
        index.close()


@router.get("/{contract_id}/search", response_model=list[Passage])
def search_contract(
    contract_id: str,
    runtime: TenantRuntime,
    q: Annotated[str, Query(min_length=1, max_length=4000, description="What to look for.")],
    k: Annotated[int, Query(ge=1, le=64)] = 10,
) -> list[Passage]:
    """Retrieval only (no language model): the best spans, each the contract's own text."""
    with SpanSearch(runtime, contract_id) as search:
        return search.passages(q, k)


@router.get("/{contract_id}/original", response_class=FileResponse)
def original_file(contract_id: str, runtime: TenantRuntime) -> FileResponse:
    """The file as it was ingested (contracts ingested before it was kept have none: 404)."""
    index = runtime.store.open(contract_id)
    original = index.original
    index.close()
    if original is None:
        raise ApiError(
            404,
            "original_not_kept",
            "this version was built before originals were kept",
            hint="upload it again",
        )
    return FileResponse(original, filename=index.manifest.file_name)


@router.delete("/{contract_id}", status_code=204)
def delete_contract(contract_id: str, runtime: TenantRuntime) -> Response:
    """Delete the contract and all its indexes."""
    runtime.store.delete(contract_id)
    return Response(status_code=204)
