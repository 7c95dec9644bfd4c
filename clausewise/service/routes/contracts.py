"""Contracts: upload (an ingest job, or the existing contract for the same bytes and settings),
list, show (with every kept version), tree, text of a span, search (retrieval only, no model),
the original file, delete. Every route takes a contract id (never a path) and reads the live
version unless asked for an older one (``?version=N``), where old citations keep resolving."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, Response, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse

from clausewise.core.domain import FileType, TextVersion
from clausewise.core.errors import ContractChanged, NoTrackedChanges
from clausewise.core.results import Passage
from clausewise.retrieval import SpanSearch
from clausewise.runtime import Runtime
from clausewise.service.audit import record
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.errors import ApiError
from clausewise.service.schemas import (
    ERROR_RESPONSES,
    ContractDetail,
    ContractPages,
    ContractSummary,
    ContractTree,
    ContractVersion,
    DefinedTerm,
    Highlight,
    HighlightPage,
    PageView,
    ServedManifest,
    TextSpan,
    TreeNode,
    UnresolvedReference,
    Upload,
)
from clausewise.service.uploads import discard, store_upload, too_large
from clausewise.service.work import submit
from indexes.layout import ID_PATTERN
from indexes.store import ContractIndex
from tools.highlight import highlight
from tools.parsing import check_document

router = APIRouter(prefix="/v1/contracts", tags=["contracts"], responses=ERROR_RESPONSES)

_MAX_TEXT = 200_000
Version = Annotated[
    int | None, Query(ge=1, description="A kept older version (default: the live one); see GET .../{id}.")
]


def open_contract(runtime: Runtime, contract_id: str, version: int | None = None) -> ContractIndex:
    """This tenant's contract by id (never a path or file name), at ``version`` or live: anything
    else is the same 404, whether or not it exists elsewhere."""
    return runtime.store.open(runtime.store.resolve_id(contract_id), version)


def _checked_id(contract_id: str | None) -> str | None:
    if contract_id is not None and not ID_PATTERN.match(contract_id):
        raise ApiError(
            422,
            "invalid_contract_id",
            f"{contract_id[:100]!r} is not a valid contract id",
            hint="ids are 1-100 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit",
        )
    return contract_id


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
    force: Annotated[
        bool, Form(description="Rebuild even if the same bytes were ingested (as a new version).")
    ] = False,
    new_version: Annotated[
        bool, Form(description="Other bytes under an existing contract are its next version.")
    ] = False,
) -> Upload:
    """Upload a contract: refused at once (and not kept) when it is too large, empty, of the wrong
    type, corrupt or encrypted, or when it holds other bytes than the existing contract of that
    id without ``new_version`` (409); otherwise an ingest job (202), or, for bytes already
    ingested with the same settings, the existing contract and no job (200)."""
    wanted = _checked_id(contract_id)
    declared = int(request.headers.get("content-length") or 0)
    if declared > runtime.settings.parsing.max_file_mb * 1024 * 1024 + 1_000_000:
        raise too_large(runtime)
    stored = await store_upload(file, runtime)
    try:
        await service.check_upload(check_document, stored.path, runtime.settings.parsing)
        archivist = runtime.archivist()
        contract = wanted or archivist.contract_id_for(stored.path)
        existing = archivist.current(contract, stored.sha256)
        if existing is not None and not force:
            discard(stored.path)
            response.status_code = 200
            return Upload(
                contract_id=contract, file_name=stored.file_name, status="unchanged", version=existing.version
            )
        archivist.refuse_a_silent_replacement(contract, stored.sha256, force or new_version)
        # no await from the check to the submit: two uploads at once are checked one after the other
        others = service.jobs.pending_ingests(tenant, contract) - {stored.sha256}
        if others and not new_version:
            raise ContractChanged(
                f"another file is being ingested as contract {contract!r} right now",
                hint="upload this one under another id ('contract_id'), or as its next version "
                "('new_version': true) once that ingest is done",
            )
        job = submit(
            service,
            tenant,
            "ingest",
            {**stored.reference(), "contract_id": contract, "force": force, "new_version": new_version},
        )
    except BaseException:
        discard(stored.path)
        raise
    return Upload(contract_id=contract, file_name=stored.file_name, status="queued", job=job)


@router.get("", response_model=list[ContractSummary])
def list_contracts(runtime: TenantRuntime) -> list[ContractSummary]:
    """The contracts of this key's tenant: title and parties, file, live version."""
    store = runtime.store
    return [ContractSummary.of(m, len(store.versions(m.contract_id))) for m in store.manifests()]


@router.get("/{contract_id}", response_model=ContractDetail)
def show_contract(contract_id: str, runtime: TenantRuntime, version: Version = None) -> ContractDetail:
    """Its manifest (of the live version, or ``version``), every kept version, defined terms and
    unresolved cross-references."""
    index = open_contract(runtime, contract_id, version)
    try:
        live = runtime.store.manifest(index.contract_id)
        record_read(runtime, index, "its details (title, parties, defined terms)")
        return ContractDetail(
            manifest=ServedManifest.of(index.manifest),
            versions=[
                ContractVersion.of(m, live is not None and m.version == live.version)
                for _path, m in runtime.store.versions(index.contract_id)
            ],
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
def contract_tree(contract_id: str, runtime: TenantRuntime, version: Version = None) -> ContractTree:
    """The clause tree, nodes in document order (ids are legal paths: "12.4(a)", "Schedule B/3")."""
    index = open_contract(runtime, contract_id, version)
    try:
        tree, text = index.tree, index.document.text
        record_read(runtime, index, "its clause tree")
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
    version: Version = None,
    reading: Annotated[
        TextVersion | None,
        Query(
            description="A Word file with tracked changes: its text before or as proposed (default: as read)."
        ),
    ] = None,
) -> TextSpan:
    """The contract's normalized text from ``start`` to ``end`` (the offsets citations use)."""
    index = open_contract(runtime, contract_id, version)
    try:
        document = index.document
        if reading is not None and document.tracked is None:
            raise NoTrackedChanges(
                f"contract {index.contract_id!r} has no tracked changes, so no text {reading!r} of its own",
                hint="ask for its text without ?reading=",
            )
        shown = document.as_version(reading) if reading is not None else document
        text = shown.text
        stop = min(len(text), start + _MAX_TEXT) if end is None else end
        if not start <= stop <= len(text) or stop - start > _MAX_TEXT:
            raise ApiError(
                422,
                "invalid_span",
                f"the span {start}-{stop} is not inside the text (0-{len(text)}) or is too long",
                hint="ask for a span inside the text, in pieces of at most 200,000 characters",
            )
        pages = shown.pages_for((start, max(start + 1, stop))) if text else []
        record_read(runtime, index, f"its text, characters {start}-{stop}")
        return TextSpan(
            contract_id=index.contract_id, start=start, end=stop, pages=pages, text=text[start:stop]
        )
    finally:
        index.close()


@router.get("/{contract_id}/pages", response_model=ContractPages)
def contract_pages(contract_id: str, runtime: TenantRuntime, version: Version = None) -> ContractPages:
    """The pages: size, how their text was read (text layer or OCR) and their character ranges."""
    index = open_contract(runtime, contract_id, version)
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
async def page_image(
    contract_id: str,
    number: int,
    runtime: TenantRuntime,
    service: CurrentService,
    scale: Annotated[float, Query(gt=0.2, le=4.0, description="Pixels per PDF point.")] = 1.5,
    version: Version = None,
) -> Response:
    """A page of the original PDF (or scan) as PNG, rendered at ``scale`` in a drawing process
    (see :mod:`clausewise.service.page_images`)."""
    original, served, read = await run_in_threadpool(_page_source, runtime, contract_id, number, version)
    png = await service.page_images.png(original, number, scale)
    await run_in_threadpool(read)
    headers = {"Cache-Control": "private, max-age=86400", "ETag": f'"{served}-{number}-{scale}"'}
    return Response(png, media_type="image/png", headers=headers)


def record_read(runtime: Runtime, index: ContractIndex, what: str) -> None:
    """The audit log's record of a read of the contract's content (``what`` says which)."""
    record(
        runtime.tenant_dir, "read", contract_id=index.contract_id, version=index.manifest.version, detail=what
    )


def _page_source(
    runtime: Runtime, contract_id: str, number: int, version: int | None
) -> tuple[Path, str, Callable[[], None]]:
    """The original file that has page ``number`` of the contract, the version's name, and the
    audit record to write once the page is shown."""
    index = open_contract(runtime, contract_id, version)
    try:
        original = index.original
        count = len(index.document.pages)
        image_file = index.document.file_type in (FileType.PDF, FileType.IMAGE)
        served = index.path.name
    finally:
        index.close()
    if original is None or not image_file:
        raise ApiError(
            404, "no_page_images", "this contract has no page images", hint="show its text (GET .../text)"
        )
    if not 1 <= number <= count:
        raise ApiError(404, "no_such_page", f"the contract has pages 1-{count}", hint="ask for one of those")
    return original, served, lambda: record_read(runtime, index, f"the image of page {number}")


@router.get("/{contract_id}/highlight", response_model=Highlight)
def span_highlight(
    contract_id: str,
    runtime: TenantRuntime,
    start: Annotated[int, Query(ge=0)],
    end: Annotated[int, Query(ge=1)],
    version: Version = None,
) -> Highlight:
    """The rectangles that show the span ``start``-``end`` on its pages (one per line of text),
    in the live version or in ``version`` (the one a citation was made against)."""
    index = open_contract(runtime, contract_id, version)
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
    contract = runtime.store.resolve_id(contract_id)
    with SpanSearch(runtime, contract) as search:
        passages = search.passages(q, k)
    record(runtime.tenant_dir, "search", contract_id=contract, clause_ids=[p.node_id for p in passages])
    return passages


@router.get("/{contract_id}/original", response_class=FileResponse)
def original_file(contract_id: str, runtime: TenantRuntime, version: Version = None) -> FileResponse:
    """The file as it was ingested (contracts ingested before it was kept have none: 404)."""
    index = open_contract(runtime, contract_id, version)
    original = index.original
    index.close()
    if original is None:
        raise ApiError(
            404,
            "original_not_kept",
            "this version was built before originals were kept",
            hint="upload it again",
        )
    record(
        runtime.tenant_dir,
        "export",
        contract_id=index.contract_id,
        version=index.manifest.version,
        detail="the original file",
    )
    return FileResponse(original, filename=index.manifest.file_name)


@router.delete("/{contract_id}", status_code=204)
def delete_contract(
    contract_id: str,
    runtime: TenantRuntime,
    version: Annotated[
        int | None, Query(ge=1, description="Delete only this older version (not the live one).")
    ] = None,
) -> Response:
    """Delete the contract, every version and index (or, with ``version``, one older version)."""
    contract = runtime.store.resolve_id(contract_id)
    if version is None:
        runtime.store.delete(contract)
    else:
        runtime.store.delete_version(contract, version)
    detail = "the contract and every version" if version is None else f"version {version}"
    record(runtime.tenant_dir, "delete", contract_id=contract, version=version, detail=detail)
    return Response(status_code=204)
