"""The Python API: ingest contracts, ask questions, stream progress, chat in threads, check and
review, one contract or a folder.

    from clausewise.api import Clausewise
    cw = Clausewise()
    cw.ingest("nda.pdf")
    for item in cw.ask_stream("nda", "How long does confidentiality last?"):
        ...                    # ProgressEvent ... then the Report
    for result in cw.check("nda", load_suite("nda")):
        ...                    # CheckResult: key, label, confidence, evidence

Everything is scoped to the runtime's tenant: its contracts, its chat threads (LangGraph's SQLite
checkpointer in ``<data_dir>/tenants/<tenant>/checkpoints.sqlite``, so a follow-up question reuses
the thread's research and a thread can be resumed by its id), its batch journals and caches.

Whatever is read or changed through it is written to the tenant's audit log
(:mod:`indexes.audit_log`) under the local user's name (``local:<user>``), as the service writes
its requests under their key: the log says who saw which contract, whatever the door. The
service itself passes ``audit=False`` and records each request under the key that made it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from opentelemetry import trace
from pydantic import BaseModel, Field

from clausewise.core.comparison import Comparison, RoundAssessment, RoundReply, TextReference, WordRound
from clausewise.core.config import Settings, load_settings, with_overrides
from clausewise.core.domain import TextVersion
from clausewise.core.errors import ContractChanged, InputError, NoTrackedChanges, ThreadNotFound
from clausewise.core.report import QuickAnswer, Report
from clausewise.core.results import (
    CheckResult,
    IngestResult,
    PlaybookSummary,
    PositionReview,
    ProvisionResult,
    ThreadInfo,
)
from clausewise.core.room import RoomCell, room_questions
from clausewise.core.tracing import (
    ContentPolicy,
    annotate,
    content_policy,
    record_content,
    step_within,
    tracer,
)
from clausewise.runtime import Runtime
from graphs.playbook_graph import PlaybookContext, build_playbook_graph
from graphs.qa_graph import QAContext, build_qa_graph
from indexes.audit_log import AuditAction, audit_log_of, local_actor
from indexes.store import ContractIndex
from tools.checks.suites import Hypothesis, Suite
from tools.journal import ResultJournal, batch_key
from tools.playbook.positions import Playbook
from tools.playbook.redlines import merged
from tools.playbook.summary import redline_queue
from tools.redline_export import RedlineDocx, redline_export
from tools.retrieval.graph import open_graph
from tools.review.provisions import ProvisionList

log = logging.getLogger(__name__)
#: The audit action of each kind of batch (:meth:`Clausewise._batch`).
_BATCH_ACTIONS: dict[str, AuditAction] = {
    "checks": "check",
    "reviews": "review",
    "playbooks": "playbook_review",
    "rooms": "room",
}


class ProgressEvent(BaseModel):
    """Something happened during an answer: a turn started, research found spans, a draft..."""

    event: str
    turn: int | None = None
    of: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class BatchItem(BaseModel):
    """One row of a batch: a decided (contract, item), ``resumed`` when read back from its journal,
    or a file that could not be ingested (``error`` says why; ``contract_id`` is its file name).
    ``contract_version`` is the version of the contract the row read (its evidence spans are
    offsets into that version's text)."""

    contract_id: str
    contract_version: int | None = None
    result: CheckResult | ProvisionResult | PositionReview | RoomCell | None = None
    error: str | None = None
    resumed: bool = False


class Clarification(BaseModel):
    """The graph paused to ask the user a question (chat only); answer with ``ChatThread.reply``."""

    thread_id: str
    question: str


def _event(chunk: dict[str, Any]) -> ProgressEvent:
    payload = dict(chunk)
    return ProgressEvent(
        event=payload.pop("event"), turn=payload.pop("turn", None), of=payload.pop("of", None), data=payload
    )


def _request(
    question: str,
    context: str,
    instructions: str,
    turns: int | None,
    interactive: bool,
    provision: str | None = None,
) -> dict[str, Any]:
    return {
        "question": question,
        "context": context,
        "instructions": instructions,
        "max_turns": turns,
        "interactive": interactive,
        "provision": provision or "",
    }


def cited_clauses(items: Iterable[Any]) -> list[str]:
    """The clause ids results cite (their sources' and evidence's ``node_id``), once each."""
    found: dict[str, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, BaseModel):
            walk(value.model_dump())
        elif isinstance(value, dict):
            node = value.get("node_id")
            if isinstance(node, str) and node:
                found.setdefault(node)
            for child in value.values():
                walk(child)
        elif isinstance(value, list | tuple):
            for child in value:
                walk(child)

    walk(list(items))
    return list(found)


class Clausewise:
    def __init__(
        self, settings: Settings | None = None, runtime: Runtime | None = None, *, audit: bool = True
    ) -> None:
        self.runtime = runtime or Runtime(settings or load_settings())
        self.settings = self.runtime.settings
        #: whom the audit log names for this object's work (None: the caller records it)
        self.actor = local_actor() if audit else None

    def audit(
        self,
        action: AuditAction,
        contract_id: str,
        *,
        version: int | None = None,
        clause_ids: Sequence[str] = (),
        detail: str = "",
    ) -> None:
        """One record of the audit log under :attr:`actor` (nothing when the caller records)."""
        if self.actor is None:
            return
        audit_log_of(self.runtime.tenant_dir).append(
            self.actor,
            action,
            contract_id=contract_id,
            version=version,
            clause_ids=list(clause_ids),
            detail=detail,
        )

    @contextlib.contextmanager
    def _audited(self, action: AuditAction, index: ContractIndex, detail: str = "") -> Iterator[list[Any]]:
        """A list to put each result shown into; when the work ends (however it ends), one record
        of the contract's version and the clauses those results cite, if any was shown."""
        shown: list[Any] = []
        try:
            yield shown
        finally:
            if shown:
                self.audit(
                    action,
                    index.contract_id,
                    version=index.manifest.version,
                    clause_ids=cited_clauses(shown),
                    detail=detail,
                )

    def ingest(
        self, path: str | Path, contract_id: str | None = None, force: bool = False, new_version: bool = False
    ) -> IngestResult:
        """Ingest a file; other bytes under an existing contract need ``new_version`` (see
        :meth:`agents.archivist.Archivist.ingest`)."""
        result = self.runtime.archivist().ingest(
            Path(path), contract_id=contract_id, force=force, new_version=new_version
        )
        if result.status != "unchanged":
            version = result.manifest.version
            self.audit("new_version" if version > 1 else "ingest", result.contract_id, version=version)
        return result

    def _traced(self, name: str, index: ContractIndex) -> tuple[trace.Span, ContentPolicy]:
        """The root span of one piece of work on ``index`` (not current: the caller makes it so
        while the work runs) and the content policy of its spans."""
        policy = ContentPolicy(
            capture=self.settings.tracing.capture_content, parties=tuple(index.manifest.parties)
        )
        root = tracer().start_span(
            name,
            attributes={
                "clausewise.tenant": self.runtime.tenant,
                "clausewise.contract": index.contract_id,
                "clausewise.contract.version": index.manifest.version,
            },
        )
        return root, policy

    def _context(self, index: ContractIndex) -> QAContext:
        return QAContext(
            interrogator=self.runtime.interrogator(index),
            researcher=self.runtime.researcher(index),
            ledger=self.runtime.ledger,
            decider=self.runtime.decider(index),
        )

    def ask_stream(
        self,
        contract: str,
        question: str,
        *,
        context: str = "",
        instructions: str = "",
        turns: int | None = None,
        version: int | None = None,
        provision: str | None = None,
    ) -> Iterator[ProgressEvent | Report]:
        """Progress events as they happen, then the report (last item), read from the live
        version of the contract or from ``version``; the report records which. ``provision``: the
        key of the option chosen where the question was offered back (its decider answers)."""
        index = self.runtime.store.open(contract, version)
        root, policy = self._traced("clausewise.ask", index)
        try:
            with content_policy(policy):
                record_content(root, "clausewise.question", question)
            final: dict[str, Any] = {}
            steps = build_qa_graph().stream(
                _request(question, context, instructions, turns, False, provision),
                stream_mode=["custom", "values"],
                context=self._context(index),
            )
            for mode, chunk in step_within(steps, root, policy):
                if mode == "custom":
                    yield _event(chunk)
                else:
                    final = chunk
            report: Report = final["report"]
            report.metadata.contract_version = index.manifest.version
            annotate(root, {"clausewise.report.sources": len(report.sources)})
            self.audit(
                "ask",
                index.contract_id,
                version=index.manifest.version,
                clause_ids=[source.node_id for source in report.sources],
            )
            yield report
        except Exception as error:  # recorded on the trace, then raised unchanged
            root.record_exception(error)
            root.set_status(trace.Status(trace.StatusCode.ERROR, type(error).__name__))
            raise
        finally:
            root.end()
            index.close()

    def quick(self, contract: str, question: str, provision: str | None = None) -> QuickAnswer:
        """The short answer alone, in seconds: decided by the trained deciders, never the model (a
        yes/no question none of them covers is unclear and left to the full report; one the router
        could not place but can name candidates for offers them back as options), with its
        sources. ``provision``: the key of the option chosen, whose decider then answers."""
        from agents.finishing import quick_answer_of

        started = time.perf_counter()
        index = self.runtime.store.open(contract)
        root, policy = self._traced("clausewise.quick", index)
        try:
            with trace.use_span(root, end_on_exit=True), content_policy(policy):
                record_content(root, "clausewise.question", question)
                decision = self.runtime.decider(index, model=False).decide(question, provision)
        finally:
            index.close()
        short_answer, sources = quick_answer_of(decision) if decision is not None else (None, [])
        self.audit(
            "ask",
            index.contract_id,
            version=index.manifest.version,
            clause_ids=cited_clauses(sources),
            detail="quick answer",
        )
        return QuickAnswer(
            question=question,
            contract_id=index.contract_id,
            short_answer=short_answer,
            sources=sources,
            seconds=round(time.perf_counter() - started, 2),
        )

    def ask(self, contract: str, question: str, **options: Any) -> Report:
        report: Report | None = None
        for item in self.ask_stream(contract, question, **options):
            if isinstance(item, Report):
                report = item
        assert report is not None
        return report

    @contextlib.contextmanager
    def _knowledge_graph(self, index: ContractIndex) -> Iterator[Any]:
        """The contract's knowledge graph when retrieval uses it (None otherwise)."""
        with open_graph(index.path, self.runtime.embedder, enabled=self.settings.retrieval.graph) as graph:
            yield graph

    def check(
        self, contract: str, suite: Suite, *, report: bool = False, version: int | None = None
    ) -> Iterator[CheckResult]:
        """One result per hypothesis of ``suite``, as each is decided; with ``report``, each
        result also carries the Interrogator's full report on the hypothesis (Markdown). The
        live version is read, or ``version``."""
        index = self.runtime.store.open(contract, version)
        try:
            checker = self.runtime.checker(index)
            with self._knowledge_graph(index) as graph, self._audited("check", index) as shown:
                for hypothesis in suite.hypotheses:
                    result = checker.check(hypothesis, graph)
                    if report:
                        asked = self.ask(contract, as_question(hypothesis), version=index.manifest.version)
                        result.report = asked.to_markdown()
                    shown.append(result)
                    yield result
        finally:
            index.close()

    def check_batch(
        self,
        sources: Sequence[Path | str],
        suite: Suite,
        *,
        report: bool = False,
        fresh: bool = False,
        journal: Path | None = None,
    ) -> Iterator[BatchItem]:
        """Every contract x every hypothesis, resumable (see :meth:`_batch`)."""
        return self._batch(
            "checks",
            sources,
            suite.model_dump_json() + str(report),
            [h.key for h in suite.hypotheses],
            CheckResult,
            lambda contract, keys, version: self.check(
                contract,
                Suite(name=suite.name, hypotheses=[h for h in suite.hypotheses if h.key in keys]),
                report=report,
                version=version,
            ),
            fresh,
            journal,
        )

    def compare(self, before: TextReference, after: TextReference) -> Comparison:
        """The clause-level changes from one text of a contract to another: two versions, two
        contracts, or a Word file's text before and as proposed (then with each change's authors)."""
        from tools.clause_compare import compare_stored

        opened: list[ContractIndex] = []
        try:
            for reference in (before, after):
                opened.append(self.runtime.store.open(reference.contract, reference.version))
            comparison = compare_stored(
                (opened[0], before.model_copy(update={"contract": opened[0].contract_id})),
                (opened[1], after.model_copy(update={"contract": opened[1].contract_id})),
                self.runtime.settings.structure,
            )
            for index in opened:
                self.audit("read", index.contract_id, version=index.manifest.version, detail="compare")
            return comparison
        finally:
            for index in opened:
                index.close()

    def word_round(self, contract: str, *, version: int | None = None) -> WordRound:
        """A Word file's tracked changes as a negotiation round: every change by author, the
        comments, and its text before compared clause by clause with its text as proposed."""
        from tools.clause_compare import word_round

        index = self.runtime.store.open(contract, version)
        try:
            found = word_round(index, self.runtime.settings.structure)
            self.audit("read", index.contract_id, version=index.manifest.version, detail="tracked changes")
            return found
        finally:
            index.close()

    def assess_round(
        self, contract: str, playbook: Playbook, *, version: int | None = None
    ) -> RoundAssessment:
        """A Word file's round held against ``playbook``: each position decided on the text before
        and on the text as proposed by the deciders, the changes in its clause, those made worse
        first. The text the contract was not read as is ingested for this alone, in a folder that
        is removed after (its models shared), so the contract's own versions are untouched."""
        from tools.clause_compare import word_round
        from tools.round_assessment import assess

        index = self.runtime.store.open(contract, version)
        try:
            found = word_round(index, self.runtime.settings.structure)
            original = index.original
            contract_id = index.contract_id
        finally:
            index.close()
        if original is None:
            raise NoTrackedChanges(
                f"contract {contract_id!r} keeps no copy of its Word file to review its other text",
                hint="ingest the Word file again (--force), then assess the round",
            )
        other: TextVersion = "before" if found.read_as == "proposed" else "proposed"
        read = self._position_reviews(contract_id, playbook, version)
        with tempfile.TemporaryDirectory(prefix="clausewise-round-") as folder:
            settings = with_overrides(
                self.runtime.settings,
                {"paths": {"data_dir": folder}, "parsing": {"tracked_changes": other}},
            )
            companion = Clausewise(runtime=Runtime(settings, hub=self.runtime.hub), audit=False)
            ingested = companion.ingest(original, contract_id=contract_id)
            other_reviews = companion._position_reviews(ingested.contract_id, playbook, None)
        before, after = (read, other_reviews) if found.read_as == "before" else (other_reviews, read)
        return assess(found, before, after, playbook)

    def reply_to_round(
        self,
        contract: str,
        playbook: Playbook,
        *,
        author: str,
        version: int | None = None,
        when: datetime | None = None,
    ) -> RoundReply:
        """Our answer to the round in their own Word file: :meth:`assess_round`, then
        :meth:`answer_round`."""
        assessed = self.assess_round(contract, playbook, version=version)
        return self.answer_round(assessed, author=author, when=when)

    def answer_round(
        self, assessed: RoundAssessment, *, author: str, when: datetime | None = None
    ) -> RoundReply:
        """Their Word file with their changes that made a position worse rejected as tracked
        changes of ``author`` (their insertions deleted, their deletions put back), each with a
        Word comment giving the reason; the rest left as they are. Read back before it is
        returned (:func:`tools.round_reply.checked`)."""
        from tools.round_reply import checked, rejections_for, reply_docx

        index = self.runtime.store.open(assessed.round.contract_id, assessed.round.version)
        try:
            original = index.original
            tracked = index.document.tracked
            data = original.read_bytes() if original is not None else b""
        finally:
            index.close()
        if tracked is None or not data:
            raise NoTrackedChanges(
                f"contract {assessed.round.contract_id!r} (version {assessed.round.version}) keeps no Word "
                "file with tracked changes to answer",
                hint="ingest the other side's Word file, then assess and answer its round",
            )
        rejections = rejections_for(assessed, tracked)
        reply, _ = reply_docx(data, rejections, author=author, when=when or datetime.now(UTC))
        checked(data, reply, tracked, rejections, author)
        self.audit(
            "export",
            assessed.round.contract_id,
            version=assessed.round.version,
            detail=f"round reply ({len(rejections)} rejected)",
        )
        return RoundReply(
            assessment=assessed,
            rejected={r.change_id: r.reason for r in rejections},
            offered={r.change_id: r.instead for r in rejections if r.instead},
            author=author,
            data=reply,
        )

    def _position_reviews(
        self, contract: str, playbook: Playbook, version: int | None
    ) -> list[PositionReview]:
        """The positions of :meth:`playbook_review`, without its summary."""
        return [
            item
            for item in self.playbook_review(contract, playbook, version=version)
            if isinstance(item, PositionReview)
        ]

    def review(
        self, contract: str, provisions: ProvisionList, *, version: int | None = None
    ) -> Iterator[ProvisionResult]:
        """One result per provision, as each is reviewed (the live version, or ``version``)."""
        index = self.runtime.store.open(contract, version)
        try:
            reviewer = self.runtime.reviewer(index)
            with self._knowledge_graph(index) as graph, self._audited("review", index) as shown:
                for provision in provisions.provisions:
                    shown.append(reviewer.review(provision, graph))
                    yield shown[-1]
        finally:
            index.close()

    def playbook_review(
        self, contract: str, playbook: Playbook, *, version: int | None = None
    ) -> Iterator[PositionReview | PlaybookSummary]:
        """Each position of ``playbook`` against the contract, as each is reviewed (the LangGraph
        loop of :mod:`graphs.playbook_graph`), then the review's risk summary, last. With
        ``playbook.draft`` the drafter model proposes redlines where the rule-made ones fall
        short, kept only where they hold."""
        index = self.runtime.store.open(contract, version)
        try:
            reviewer = self.runtime.playbook_reviewer(index, playbook)
            drafter = (
                self.runtime.redline_drafter(index, reviewer)
                if self.runtime.settings.playbook.draft
                else None
            )
            graph = build_playbook_graph()
            detail = f"playbook {playbook.name} version {playbook.version}"
            with self._audited("playbook_review", index, detail) as shown:
                for update in graph.stream(
                    {"queue": list(playbook.positions), "draft": drafter is not None},
                    context=PlaybookContext(reviewer=reviewer, drafter=drafter),
                    stream_mode="updates",
                    config={"recursion_limit": 4 * len(playbook.positions) + 8},
                ):
                    for node, change in update.items():
                        if node == "file_review":
                            shown.extend(change["reviews"])
                            yield from change["reviews"]
                        elif node == "summarise_risk":
                            yield change["summary"]
        finally:
            index.close()

    def playbook_batch(
        self,
        sources: Sequence[Path | str],
        playbook: Playbook,
        *,
        fresh: bool = False,
        journal: Path | None = None,
    ) -> Iterator[BatchItem]:
        """Every contract (a data room) x every position, resumable (see :meth:`_batch`); the risk
        summary of each contract is :func:`tools.playbook.summary.summarise` of its rows."""

        def reviews(contract: str, keys: set[str], version: int | None) -> Iterator[PositionReview]:
            pending = playbook.model_copy(
                update={"positions": [p for p in playbook.positions if p.id in keys]}
            )
            for item in self.playbook_review(contract, pending, version=version):
                if isinstance(item, PositionReview):
                    yield item

        return self._batch(
            "playbooks",
            sources,
            playbook.model_dump_json(),
            [p.id for p in playbook.positions],
            PositionReview,
            reviews,
            fresh,
            journal,
        )

    def redline_docx(
        self,
        contract: str,
        reviews: Sequence[PositionReview],
        *,
        author: str,
        when: datetime,
        version: int | None = None,
        keep_active: bool = False,
    ) -> RedlineDocx:
        """The reviews' redlines as tracked changes: in the contract's own Word file when it came
        as one (its formatting kept), else in a DOCX of its text (the result says which, and
        why). Where two positions' redlines change the same words, the higher risk's is kept
        (see :func:`tools.playbook.redlines.merged`). What could act or fetch when the file is
        opened (macros, remote templates, external links, fields that fetch) is removed from the
        Word file unless ``keep_active`` (the result lists what went)."""
        index = self.runtime.store.open(contract, version)
        try:
            edits, _ = merged(redline_queue(reviews))
            made = redline_export(
                index.document.text,
                edits,
                original=index.original,
                author=author,
                when=when,
                title=index.manifest.title,
                keep_active=keep_active,
            )
        finally:
            index.close()
        self.audit(
            "export",
            index.contract_id,
            version=index.manifest.version,
            clause_ids=cited_clauses(reviews),
            detail=f"a redline ({made.base})",
        )
        return made

    def review_batch(
        self,
        sources: Sequence[Path | str],
        provisions: ProvisionList,
        *,
        fresh: bool = False,
        journal: Path | None = None,
    ) -> Iterator[BatchItem]:
        """Every contract (a data room) x every provision, resumable (see :meth:`_batch`)."""
        return self._batch(
            "reviews",
            sources,
            provisions.model_dump_json(),
            [p.key for p in provisions.provisions],
            ProvisionResult,
            lambda contract, keys, version: self.review(
                contract,
                provisions.model_copy(
                    update={"provisions": [p for p in provisions.provisions if p.key in keys]}
                ),
                version=version,
            ),
            fresh,
            journal,
        )

    def answer_questions(
        self, contract: str, questions: Sequence[tuple[str, str]], *, version: int | None = None
    ) -> Iterator[RoomCell]:
        """One contract's cells of a data room, ``questions`` as (key, question): the contract's
        indexes (the live version, or ``version``) opened and its decider built once, each
        question's quick answer as it is decided."""
        from agents.room_answerer import RoomAnswerer

        index = self.runtime.store.open(contract, version)
        try:
            # a grid of quick answers: a question no trained decider covers is left to a report
            with self._audited("room", index) as shown:
                for cell in RoomAnswerer(self.runtime.decider(index, model=False)).answer_all(questions):
                    shown.append(cell)
                    yield cell
        finally:
            index.close()

    def ask_room(
        self,
        sources: Sequence[Path | str],
        questions: Sequence[str],
        *,
        fresh: bool = False,
        journal: Path | None = None,
    ) -> Iterator[BatchItem]:
        """A data room: every question over every contract, a cell each (the quick answer, its
        verified sources, or "not addressed" / "unclear"), contract by contract, resumable (see
        :meth:`_batch`; the journal is keyed by the questions and the decision settings too)."""
        asked = room_questions(questions)
        playbook = json.dumps(
            {"questions": asked, "decision": self.settings.decision.model_dump(mode="json")}, sort_keys=True
        )
        return self._batch(
            "rooms",
            sources,
            playbook,
            [key for key, _ in asked],
            RoomCell,
            lambda contract, keys, version: self.answer_questions(
                contract, [q for q in asked if q[0] in keys], version=version
            ),
            fresh,
            journal,
        )

    def _batch(
        self,
        kind: str,
        sources: Sequence[Path | str],
        playbook: str,
        keys: list[str],
        model: type[Any],
        run: Callable[[str, set[str], int | None], Iterator[Any]],
        fresh: bool,
        journal_path: Path | None,
    ) -> Iterator[BatchItem]:
        """Every contract x every item. A source is a file (ingested first, as needed) or the id
        of an ingested contract. Resumable: results already in the batch's journal are yielded
        again as ``resumed`` instead of being redone, unless ``fresh``. The journal is
        ``journal_path`` when given (a service job's own), else one in the tenant's
        ``batches/<kind>/`` keyed by the sources, the playbook and the settings that change a
        result. A file that cannot be ingested becomes one row with its error, and the batch
        goes on."""
        if journal_path is None:
            relevant = self.settings.model_dump_json(
                include={"retrieval", "checks", "review", "models", "decision", "playbook"}
            )
            names = (str(s.resolve()) if isinstance(s, Path) else f"contract:{s}" for s in sources)
            key = batch_key(kind, *names, playbook, relevant)
            journal_path = self.runtime.journal_dir(kind) / f"{key}.jsonl"
        journal = ResultJournal(journal_path, model)
        if fresh:
            journal.path.unlink(missing_ok=True)
        done = journal.done()
        for source in sources:
            if isinstance(source, Path):
                try:
                    contract_id = self.ingest(source).contract_id
                except (InputError, ContractChanged) as error:
                    log.warning(
                        "batch: skipped %s: %s",
                        source.name,
                        error,
                        extra={"tenant": self.runtime.tenant, "file": str(source)},
                    )
                    yield BatchItem(contract_id=source.name, error=str(error))
                    continue
            else:
                contract_id = self.runtime.store.resolve(source)
            manifest = self.runtime.store.manifest(contract_id)
            version = manifest.version if manifest is not None else None
            resumed = [done[(contract_id, k)] for k in keys if (contract_id, k) in done]
            if resumed:
                self.audit(
                    _BATCH_ACTIONS[kind],
                    contract_id,
                    version=version,
                    clause_ids=cited_clauses(resumed),
                    detail="results read back from the batch's journal",
                )
            for item_key in keys:
                if (contract_id, item_key) in done:
                    yield BatchItem(
                        contract_id=contract_id,
                        contract_version=version,
                        result=done[(contract_id, item_key)],
                        resumed=True,
                    )
            pending = {k for k in keys if (contract_id, k) not in done}
            if pending:
                for result in run(contract_id, pending, version):
                    journal.record(contract_id, result)
                    yield BatchItem(
                        contract_id=contract_id, contract_version=version, result=result, resumed=False
                    )

    # -- chat threads ----------------------------------------------------------------------------

    def threads(self, contract: str | None = None) -> list[ThreadInfo]:
        """The tenant's chat threads, most recent first (of one contract when given)."""
        contract_id = self.runtime.store.resolve(contract) if contract else None
        return self.runtime.threads.list(contract_id)

    @contextlib.contextmanager
    def chat(self, contract: str, thread_id: str | None = None) -> Iterator[ChatThread]:
        """A conversation on one contract: a new thread on its live version, or the tenant's
        thread ``thread_id`` (:class:`ThreadNotFound` when the tenant has no such thread on this
        contract), which goes on reading the version it was started on."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        contract_id = self.runtime.store.resolve(contract)
        if thread_id is None:
            version = self.runtime.store.manifest(contract_id)
            info = self.runtime.threads.create(contract_id, version.version if version else None)
        else:
            info = self.runtime.threads.get(thread_id)
            if info.contract_id != contract_id:
                raise ThreadNotFound(
                    f"thread {thread_id!r} is about {info.contract_id!r}, not {contract_id!r}",
                    hint=f"chat on {info.contract_id} to resume it, or start a new thread",
                )
        index = self.runtime.store.open(contract_id, info.contract_version)
        try:
            path = self.runtime.tenant_dir / "checkpoints.sqlite"
            path.parent.mkdir(parents=True, exist_ok=True)
            with SqliteSaver.from_conn_string(str(path)) as saver:
                yield ChatThread(build_qa_graph(saver), self._context(index), info, self.runtime, self.audit)
        finally:
            index.close()


class ChatThread:
    """One conversation. ``ask`` streams events and ends with a Report, or with a Clarification
    when the question is ambiguous (then call ``reply``)."""

    def __init__(
        self,
        graph: CompiledStateGraph,
        context: QAContext,
        info: ThreadInfo,
        runtime: Runtime,
        audit: Callable[..., None],
    ) -> None:
        self.graph = graph
        self.context = context
        self.info = info
        self.runtime = runtime
        self.audit = audit  # Clausewise.audit: each answer shown is recorded
        self.config = {"configurable": {"thread_id": f"{info.contract_id}:{info.id}"}}

    @property
    def thread_id(self) -> str:
        return self.info.id

    @property
    def contract_id(self) -> str:
        return self.info.contract_id

    def _run(
        self, payload: Any, said: str, title: str = ""
    ) -> Iterator[ProgressEvent | Report | Clarification]:
        threads = self.runtime.threads
        threads.touch(self.thread_id, title)
        threads.add_message(self.thread_id, "user", said)
        final: dict[str, Any] = {}
        for mode, chunk in self.graph.stream(
            payload, self.config, stream_mode=["custom", "values"], context=self.context
        ):
            if mode == "custom":
                yield _event(chunk)
            else:
                final = chunk
        pending = self.graph.get_state(self.config)
        interrupts = [i for task in pending.tasks for i in task.interrupts]
        if interrupts:
            question = interrupts[0].value["clarifying_question"]
            threads.add_message(self.thread_id, "assistant", question)
            yield Clarification(thread_id=self.thread_id, question=question)
        elif final.get("report") is not None:
            report: Report = final["report"]
            report.metadata.contract_version = self.info.contract_version
            threads.add_message(self.thread_id, "assistant", report.preliminary_answer, report.to_json())
            self.audit(
                "ask",
                self.contract_id,
                version=self.info.contract_version,
                clause_ids=[source.node_id for source in report.sources],
                detail=f"chat thread {self.thread_id}",
            )
            yield report

    def ask(
        self,
        question: str,
        *,
        context: str = "",
        instructions: str = "",
        turns: int | None = None,
        clarify: bool = True,
        provision: str | None = None,
    ) -> Iterator[ProgressEvent | Report | Clarification]:
        """A new question; ``clarify`` lets the Interrogator ask back when it is ambiguous (a
        client that cannot show a question as one turns it off and gets its best answer);
        ``provision``: the key of the provision chosen where an answer offered the question back."""
        return self._run(
            _request(question, context, instructions, turns, clarify, provision), question, title=question
        )

    def reply(self, answer: str) -> Iterator[ProgressEvent | Report | Clarification]:
        """Answer the clarifying question the thread is waiting on."""
        from langgraph.types import Command

        return self._run(Command(resume=answer), answer)

    def awaiting_reply(self) -> str | None:
        """The clarifying question the thread waits on, if any."""
        state = self.graph.get_state(self.config)
        interrupts = [i for task in state.tasks for i in task.interrupts]
        return interrupts[0].value["clarifying_question"] if interrupts else None

    def send(
        self,
        text: str,
        *,
        context: str = "",
        instructions: str = "",
        turns: int | None = None,
        clarify: bool = True,
        provision: str | None = None,
    ) -> Iterator[ProgressEvent | Report | Clarification]:
        """The next message of the conversation: the answer to a pending clarifying question, or a
        new question (a chat front end need not know which)."""
        if self.awaiting_reply():
            return self.reply(text)
        return self.ask(
            text,
            context=context,
            instructions=instructions,
            turns=turns,
            clarify=clarify,
            provision=provision,
        )

    def history(self) -> list[str]:
        """Questions answered so far in this thread."""
        values = self.graph.get_state(self.config).values
        return list(dict.fromkeys(f.question for f in values.get("findings", []) if f.turn == 1))


def as_question(hypothesis: Hypothesis) -> str:
    """A hypothesis asked as a question for the Interrogator."""
    text = hypothesis.text.rstrip(".")
    return f"Does the contract provide that {text[:1].lower()}{text[1:]}? Look for exceptions."
