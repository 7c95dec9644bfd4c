"""Results the agents hand each other and the entry points: what was ingested, what research
found, the Interrogator's draft, hypothesis checks and provision reviews.

They live on the ground floor because every layer above passes them along (a graph's state holds
findings, a renderer prints check results, the service returns them as JSON); only the agents
that produce them know how.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, Field, computed_field

from clausewise.core.domain import EvidenceSpan, Hit, RetrievalQuery, Span
from clausewise.core.report import RouteChoice

# --- ingestion -----------------------------------------------------------------------------------

INDEX_FORMAT = 1


class Manifest(BaseModel):
    """What one index version holds: the file ingested, how, with which settings and models."""

    contract_id: str
    tenant: str
    file_name: str
    source_path: str
    file_type: str
    content_sha256: str
    size_bytes: int
    pages: int
    characters: int
    created_at: str
    clausewise_version: str
    index_format: int = INDEX_FORMAT
    ingest_fingerprint: str
    settings: dict[str, Any] = Field(default_factory=dict)
    embedding_model: str
    embedding_dimension: int
    structure: str
    counts: dict[str, int] = Field(default_factory=dict)
    ocr_pages: list[int] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    original: str | None = Field(
        default=None, description="The ingested file's bytes kept in the version (to render its pages)."
    )
    version: int = Field(
        default=1,
        description="The contract's version this build is (1, 2, ...): every build is kept until deleted, "
        "so what cited an older one still resolves against it.",
    )
    title: str = Field(default="", description="The contract's title, from its first lines.")
    parties: list[str] = Field(default_factory=list, description="The parties its preamble names.")


@dataclass
class IngestResult:
    """What an ingest did: built a new index version, or found the same bytes and settings."""

    contract_id: str
    status: Literal["ingested", "unchanged"]
    manifest: Manifest
    write_seconds: float = 0.0


class ThreadInfo(BaseModel):
    """A chat thread: its id, the contract it is about, and its first question as its title. A
    thread reads the version of the contract it was started on, so its findings keep citing the
    text they were found in after a new version is ingested."""

    id: str
    contract_id: str
    contract_version: int | None = Field(
        default=None,
        description="The contract's version the thread reads (None: threads from before versions).",
    )
    title: str = ""
    created_at: str
    updated_at: str


class ThreadMessage(BaseModel):
    """One turn of a chat thread: the user's words, or the assistant's clarifying question or
    report (then ``report`` holds it, as its JSON)."""

    seq: int
    role: Literal["user", "assistant"]
    content: str
    report: dict[str, Any] | None = None
    at: str


# --- research -------------------------------------------------------------------------------------

Tool = Literal["bm25", "dense", "graph"]


class QueryPlan(BaseModel):
    """How the Researcher searches for one question: BM25 keywords, a semantic query, tools."""

    keywords: list[str] = Field(default_factory=list, max_length=12)
    semantic_query: str = ""
    tools: list[Tool] = Field(default_factory=lambda: ["bm25", "dense", "graph"])

    def query(self, question: str) -> RetrievalQuery:
        return RetrievalQuery(
            question=question, keywords=self.keywords, semantic=self.semantic_query or question
        )


class RetrievedSpan(NamedTuple):
    """One answer of the plain retrieval interface: the file, the span of its text, the score."""

    file: str
    span: Span
    score: float


class Passage(EvidenceSpan):
    """A retrieved span with what a reader needs: the contract's own text at the span (so it is
    verified by construction), the clause holding it and its pages."""

    contract_id: str
    file: str
    score: float


class VerifiedCitation(EvidenceSpan):
    """A quote that exists verbatim (whitespace/OCR-hyphen tolerant) at ``span`` of the contract."""

    contract_id: str
    evidence: int
    exact: bool = Field(
        default=True,
        description="False when the model's near-miss quote was replaced by the sentence it came from.",
    )
    attributed: bool = Field(
        default=False,
        description="Cited by post-hoc attribution (the hypothesis classifier) or by the value reader, "
        "not by the answering model.",
    )


class ResearchResult(BaseModel):
    """One research turn: the plan, the passages read, the answer and its verified citations."""

    question: str
    plan: QueryPlan
    hits: list[Hit]
    answer: str = ""
    addressed: bool = True
    citations: list[VerifiedCitation] = Field(default_factory=list)
    rejected_quotes: list[str] = Field(default_factory=list, description="Quotes that failed verification.")
    error: str = Field(default="", description="Why no answer could be read, when none could.")


# --- interrogation -------------------------------------------------------------------------------


class Inquiry(BaseModel):
    """What the user asks: the question, the background and instructions they give, and the
    research turns it may take."""

    question: str
    context: str = ""
    instructions: str = ""
    max_turns: int = Field(ge=1)
    parts: list[str] = Field(
        default_factory=list, description="The points of a compound question, each to be answered."
    )


class HitSummary(BaseModel):
    """A retrieved passage as a finding remembers it (no text: the index has it)."""

    node_id: str
    span: Span
    pages: list[int]
    score: float
    excerpt: Span | None = Field(
        default=None, description="The part of the hit the answerer read (None: recorded before it was kept)."
    )


class Finding(BaseModel):
    """What one research turn established: the Researcher's answer and its verified citations."""

    session: int = Field(default=1, description="Which question of a chat thread it served.")
    turn: int
    question: str
    answer: str
    addressed: bool
    citations: list[VerifiedCitation] = Field(default_factory=list)
    hits: list[HitSummary] = Field(default_factory=list)
    rejected_quotes: list[str] = Field(default_factory=list)


class Draft(BaseModel):
    """The Interrogator's working report, rewritten after each turn, with its own verdict on
    whether the question is answered."""

    title: str
    short_answer: str = Field(
        default="",
        description="The bottom line: yes / no / partly / not addressed, or the value asked for, "
        "with its source numbers.",
    )
    summary: str
    reasoning: list[str] = Field(default_factory=list)
    preliminary_answer: str
    gaps: list[str] = Field(default_factory=list)
    addressed: bool = True
    complete: bool = False
    confidence: float = Field(default=0.0, ge=0, le=1)


class RestatedSentence(BaseModel):
    """One answer sentence restating one source (its number), about one subject or part."""

    source: int
    about: str = ""
    part: str = ""
    text: str


class Restatement(BaseModel):
    """The writer's restatement of the report's sources, one sentence each (the answer of an open
    question is composed from these, each checked against its one source)."""

    sentences: list[RestatedSentence] = Field(default_factory=list)


# --- hypothesis checks and provision reviews ------------------------------------------------------

Label = Literal["Entailment", "Contradiction", "NotMentioned"]
LABELS: tuple[Label, ...] = ("Entailment", "Contradiction", "NotMentioned")


class Ruling(BaseModel):
    """What the hypothesis classifier decided on a "does the agreement provide that ...?"
    question before the model writes: the model reasons around it, the short answer follows it."""

    hypothesis: str
    label: Label
    confidence: float
    rationale: str = ""
    citations: list[VerifiedCitation] = Field(default_factory=list)


DecidedBy = Literal["provision classifier", "hypothesis classifier", "value reader", "model", "none"]
DecisionVerdict = Literal["yes", "no", "not addressed", "unclear"]


class Decision(BaseModel):
    """The short answer of a question as a decider settled it, before any prose is written.

    ``form`` "verdict" (a yes/no question) carries ``verdict``; "value" carries the ``value`` in
    the contract's words (or, where the contract states it as a condition or a reference, the
    sentence that does: ``value_type`` "condition"), "not addressed" when the contract does not
    state it. Either form may be "unclear": no decider was confident, and ``closest`` holds the
    clauses that came nearest. ``grounds`` are the sentences the decision rests on, verified
    spans of the contract."""

    question: str
    form: Literal["verdict", "value"]
    verdict: DecisionVerdict | None = None
    value: str = ""
    value_type: str = ""
    normalized: str = ""
    qualification: str = ""
    decided_by: DecidedBy = "none"
    provision: str = Field(default="", description="The known provision the question was tied to.")
    polarity: Literal["present", "absent"] = Field(
        default="present",
        description="Which way round the question asks: present (yes = the contract has the provision) "
        'or absent (yes = it does not: "Can we assign freely?").',
    )
    confidence: float | None = None
    leaning: Literal["yes", "no"] | None = Field(
        default=None,
        description="Where unclear: the answer the evidence leans to (never given as the answer).",
    )
    leaning_probability: float | None = Field(
        default=None, description="The calibrated probability of the leaning answer (0.5 to 1)."
    )
    deferred: bool = Field(
        default=False,
        description="No trained decider covers the question and the model was not asked here: the full "
        "report researches it.",
    )
    found: Literal["present", "absent"] | None = Field(
        default=None,
        description="Where the question's way round is unclear: what the provision's decider found, shown "
        "instead of a yes or no.",
    )
    options: list[RouteChoice] = Field(
        default_factory=list,
        description="Where the router could not place the question: the provisions it may mean, the "
        "likeliest first (the reading it would take); none is decided until the asker chooses.",
    )
    rationale: str = ""
    grounds: list[VerifiedCitation] = Field(default_factory=list)
    closest: list[VerifiedCitation] = Field(default_factory=list)

    @property
    def unclear(self) -> bool:
        return self.verdict == "unclear"

    @property
    def settled(self) -> bool:
        """Whether a decider committed to an answer (no later turn can change it)."""
        return self.verdict not in ("unclear", None) or (self.form == "value" and bool(self.value))


class CheckResult(BaseModel):
    """A hypothesis checked against one contract: its label, confidence and verified evidence."""

    key: str
    topic: str = ""
    hypothesis: str
    label: Label
    confidence: float
    evidence: list[EvidenceSpan] = Field(default_factory=list)
    rationale: str = ""
    overruled: str = ""
    asked_model: bool = True
    best_relevance: float | None = Field(
        default=None, description="Best reranker probability of the evidence."
    )
    best_probabilities: dict[str, float] | None = Field(
        default=None, description="NLI judge: the highest P(Entailment) and P(Contradiction) of any sentence."
    )
    seconds: float = 0.0
    report: str | None = Field(default=None, description="The Interrogator's report, when asked for.")


class ProvisionResult(BaseModel):
    """A provision reviewed in one contract: present or absent, its clauses and verified value."""

    key: str
    name: str
    present: bool
    confidence: float = Field(description="Best probability of the provision's clauses (see decided_by).")
    decided_by: str = Field(default="reranker", description="classifier or reranker")
    spans: list[EvidenceSpan] = Field(default_factory=list)
    answer: str | None = Field(default=None, description="The extracted value, when verified.")
    answer_evidence: EvidenceSpan | None = Field(default=None, description="Where the value is stated.")
    seconds: float = 0.0


PositionVerdict = Literal[
    "meets_standard", "meets_fallback", "deviation", "missing", "refused_ambiguous", "refused_not_covered"
]
RiskTier = Literal["low", "medium", "high"]


class PlaybookCitation(BaseModel):
    """The playbook position a verdict is measured against: which playbook, which version, which
    position and the requirement it held the clause to (the standard, or fallback ``fallback``)."""

    playbook: str
    version: str
    position_id: str
    requirement: str
    fallback: int | None = None


class RedlineEdit(BaseModel):
    """One tracked change: the contract's text at ``span`` (``deleted``) replaced by ``inserted``
    (an insertion when the span is empty)."""

    span: Span
    deleted: str = ""
    inserted: str = ""


class Redline(BaseModel):
    """The edits proposed for one position, how they were made, and whether the edited clause,
    decided again, meets the position (None: not re-decidable without the models)."""

    kind: Literal["value", "delete", "insert", "rewrite", "drafted"]
    edits: list[RedlineEdit] = Field(default_factory=list)
    target: str = Field(default="", description="The requirement the edit brings the clause to.")
    satisfies: bool | None = None


class PositionReview(BaseModel):
    """A playbook position reviewed in one contract."""

    position_id: str
    clause: str
    verdict: PositionVerdict
    fallback: int | None = Field(default=None, description="Which fallback is met (meets_fallback).")
    risk: RiskTier
    rationale: str
    citations: list[VerifiedCitation] = Field(
        default_factory=list, description="The contract's clause, quoted and verified."
    )
    playbook: PlaybookCitation
    decided_by: str = "none"
    confidence: float | None = None
    guidance: str = ""
    redline: Redline | None = None
    drafting: str = Field(
        default="",
        description="With playbook.draft: what became of the drafter model's edit (kept as the "
        "redline, or why it was refused, the rule-made redline then kept).",
    )
    seconds: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def key(self) -> str:
        """The position's id, as batches and their journals key every row's result."""
        return self.position_id


class PlaybookSummary(BaseModel):
    """The review's overall risk: the verdict counts and the deviations (and missing clauses) by
    risk tier, highest first."""

    counts: dict[str, int] = Field(default_factory=dict)
    overall_risk: Literal["none", "low", "medium", "high"] = "none"
    high: list[str] = Field(default_factory=list)
    medium: list[str] = Field(default_factory=list)
    low: list[str] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
