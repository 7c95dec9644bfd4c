"""Request and response bodies of the HTTP API (what ``/docs`` shows). Results reuse the domain
models (Report, CheckResult, ProvisionResult, Manifest, ThreadInfo ...) as they are."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clausewise.core.domain import NodeKind, Span
from clausewise.core.results import Manifest, ThreadInfo, ThreadMessage
from clausewise.service.answers import (
    MAX_CONTEXT_CHARS,
    MAX_HYPOTHESIS_CHARS,
    MAX_INSTRUCTIONS_CHARS,
    MIN_HYPOTHESIS_CHARS,
)
from clausewise.service.jobs import Job

ReportFormat = Literal["json", "md", "html"]


class Strict(BaseModel):
    """Unknown fields are refused, so a typo is an error rather than silently ignored."""

    model_config = ConfigDict(extra="forbid")


# --- contracts ---------------------------------------------------------------------------------


def _from_manifest(model: type[BaseModel], manifest: Manifest) -> dict[str, Any]:
    """What a view of a contract (``model``) shows of its manifest: the values of the fields both
    have, and when it was ingested (``ingested_at``, the manifest's ``created_at``)."""
    shared = set(model.model_fields) & set(Manifest.model_fields)
    return {**{name: getattr(manifest, name) for name in shared}, "ingested_at": manifest.created_at}


class ServedManifest(Manifest):
    """A manifest as the API shows it: everything but where the file was on the server."""

    source_path: str = Field(default="", exclude=True)

    @classmethod
    def of(cls, manifest: Manifest) -> ServedManifest:
        return cls.model_validate(manifest.model_dump())


class ContractSummary(BaseModel):
    contract_id: str
    title: str = Field(default="", description="The contract's title, from its first lines.")
    parties: list[str] = Field(default_factory=list, description="The parties its preamble names.")
    file_name: str
    file_type: str
    version: int = Field(default=1, description="The live version (what questions read).")
    versions: int = Field(default=1, description="Versions kept (older ones until deleted).")
    pages: int
    clauses: int
    definitions: int
    structure: str
    ocr_pages: list[int]
    warnings: list[str] = Field(default_factory=list, description="What reading the file had to work around.")
    ingested_at: str

    @classmethod
    def of(cls, manifest: Manifest, versions: int = 1) -> ContractSummary:
        return cls(
            **_from_manifest(cls, manifest),
            versions=versions,
            clauses=manifest.counts.get("nodes", 0),
            definitions=manifest.counts.get("definitions", 0),
        )


class ContractVersion(BaseModel):
    """One kept version of a contract: what it was built from, and whether it is the live one."""

    version: int
    live: bool
    file_name: str
    content_sha256: str
    pages: int
    characters: int
    ingested_at: str

    @classmethod
    def of(cls, manifest: Manifest, live: bool) -> ContractVersion:
        return cls(**_from_manifest(cls, manifest), live=live)


class DefinedTerm(BaseModel):
    term: str
    node_id: str
    span: Span


class UnresolvedReference(BaseModel):
    text: str
    source_node: str
    span: Span


class ContractDetail(BaseModel):
    manifest: ServedManifest
    versions: list[ContractVersion] = Field(
        default_factory=list, description="Every kept version, oldest first."
    )
    defined_terms: list[DefinedTerm]
    unresolved_references: list[UnresolvedReference]


class TreeNode(BaseModel):
    id: str
    kind: NodeKind
    label: str
    title: str
    preview: str = Field(default="", description="The first words of the node's own text (for an outline).")
    start: int
    end: int
    pages: list[int]
    parent: str | None
    children: list[str]
    depth: int


class ContractTree(BaseModel):
    contract_id: str
    structure: str
    root_id: str
    nodes: list[TreeNode]


class TextSpan(BaseModel):
    contract_id: str
    start: int
    end: int
    pages: list[int]
    text: str


class PageView(BaseModel):
    number: int
    width: float = Field(description="In PDF points (0 for documents without page geometry).")
    height: float
    source: Literal["text", "ocr", "empty"]
    start: int
    end: int


class ContractPages(BaseModel):
    contract_id: str
    file_type: str
    images: bool = Field(description="Page images can be rendered (a PDF or scan whose original is kept).")
    pages: list[PageView]


class HighlightPage(BaseModel):
    page: int
    width: float
    height: float
    rects: list[tuple[float, float, float, float]] = Field(description="x0, y0, x1, y1 in PDF points.")


class Highlight(BaseModel):
    """Where a span is on its pages: a rectangle per line, from the word boxes (empty for a
    document without page geometry: then highlight the characters themselves)."""

    contract_id: str
    start: int
    end: int
    pages: list[int]
    boxes: list[HighlightPage]


class Upload(BaseModel):
    """The answer to an upload: the contract's id and the job that ingests it (none when the same
    bytes were already ingested with the same settings: then ``version`` is the version they are)."""

    contract_id: str
    file_name: str = Field(default="", description="The uploaded file's name, as stored.")
    status: Literal["queued", "unchanged"]
    version: int | None = None
    job: Job | None = None


# --- questions and threads ---------------------------------------------------------------------


#: A known provision's key ("cuad:cap-on-liability", "nda:nda-3"): what a choice among the options
#: a question was offered back with sends.
PROVISION_KEY = r"^[a-z]+:[a-z0-9-]+$"
PROVISION_KEY_CHARS = 80
ChosenProvision = Annotated[
    str | None,
    Field(
        max_length=PROVISION_KEY_CHARS,
        pattern=PROVISION_KEY,
        description="Where an answer offered the question back with options: the key of the one "
        "chosen (e.g. cuad:cap-on-liability); that provision's decider answers.",
    ),
]


class AskRequest(Strict):
    question: str = Field(min_length=1, description="The question (at most service.max_question_chars).")
    version: int | None = Field(
        default=None, ge=1, description="A kept older version to read (default: live)."
    )
    context: str = Field(
        default="", max_length=MAX_CONTEXT_CHARS, description="Background the answer should use."
    )
    instructions: str = Field(
        default="", max_length=MAX_INSTRUCTIONS_CHARS, description="How the report should be written."
    )
    turns: int | None = Field(default=None, ge=1, le=10, description="Research turns at most.")
    provision: ChosenProvision = None
    stream: bool = Field(default=False, description="Answer with Server-Sent Events as the work goes on.")
    format: ReportFormat = Field(default="json", description="The report's rendering when not streamed.")
    cancel_on_disconnect: bool = Field(
        default=False, description="Streamed: stop the work when the client goes away (default: finish it)."
    )


class ThreadCreate(Strict):
    contract: str = Field(min_length=1)


class ThreadDetail(BaseModel):
    thread: ThreadInfo
    messages: list[ThreadMessage]
    awaiting_reply: bool = Field(description="The last assistant message is a clarifying question.")


class MessageRequest(Strict):
    content: str = Field(min_length=1, description="A question, or the answer to a clarifying question.")
    turns: int | None = Field(default=None, ge=1, le=10)
    provision: ChosenProvision = None
    stream: bool = False
    cancel_on_disconnect: bool = False


# --- checks and reviews ------------------------------------------------------------------------


class CheckRequest(Strict):
    contracts: list[str] = Field(min_length=1, max_length=10_000)
    suite: str | None = Field(default=None, description="A built-in suite: nda.")
    playbook: str | None = Field(default=None, max_length=200_000, description="A playbook's YAML text.")
    hypotheses: list[
        Annotated[str, Field(min_length=MIN_HYPOTHESIS_CHARS, max_length=MAX_HYPOTHESIS_CHARS)]
    ] = Field(
        default_factory=list, max_length=200, description="Hypotheses typed in (5 to 2,000 characters each)."
    )
    report: bool = Field(default=False, description="Add the Interrogator's report to each result (slow).")


class ReviewRequest(Strict):
    contracts: list[str] = Field(min_length=1, max_length=10_000)
    provisions: str | None = Field(default="cuad", description="A built-in provision list: cuad.")
    playbook: str | None = Field(
        default=None, max_length=200_000, description="A provision list's YAML text."
    )


class PlaybookUpload(Strict):
    yaml: str = Field(min_length=1, max_length=200_000, description="The playbook's YAML text.")


class PlaybookInfo(BaseModel):
    name: str
    version: str
    positions: int
    builtin: bool
    description: str = ""


class PlaybookList(BaseModel):
    playbooks: list[PlaybookInfo]


class PlaybookChoice(Strict):
    """Which playbook: a built-in or stored one by name (and version), or one sent as YAML."""

    playbook: str | None = Field(
        default="playbook-commercial",
        max_length=80,
        description="A built-in playbook (playbook-commercial, playbook-nda) or one of yours by name.",
    )
    version: str | None = Field(
        default=None, max_length=40, description="Your playbook's version (default: latest)."
    )
    yaml: str | None = Field(
        default=None, max_length=200_000, description="A playbook's YAML text, instead of a stored one."
    )


class PlaybookReviewRequest(PlaybookChoice):
    contracts: list[str] = Field(min_length=1, max_length=10_000)


class RoundAssessmentRequest(PlaybookChoice):
    """A round held against a playbook (the contract is the route's)."""


class JobList(BaseModel):
    jobs: list[Job]


# --- health ------------------------------------------------------------------------------------


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, str] = Field(description="Each check: 'ok' or what is wrong.")


class Problem(BaseModel):
    """The error envelope's inner object."""

    code: str
    message: str
    hint: str = ""


class ErrorBody(BaseModel):
    error: Problem


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in {
        400: "Bad request (malformed or too deeply nested JSON, not UTF-8, invalid setting)",
        401: "Missing or invalid API key",
        404: "Not found for this key (another tenant's is not found either)",
        409: "Conflict (other bytes under an existing contract, being ingested, a job not finished)",
        413: "Too large",
        415: "Unsupported file type",
        422: "Invalid input (corrupt, encrypted, empty file; invalid field)",
        429: "Too many jobs waiting",
        503: "A model or OCR is unavailable",
    }.items()
}
