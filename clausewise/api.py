"""The Python API: ingest contracts, ask questions, stream progress, chat in threads.

    from clausewise.api import Clausewise
    cw = Clausewise()
    cw.ingest("nda.pdf")
    for item in cw.ask_stream("nda", "How long does confidentiality last?"):
        print(item)            # ProgressEvent ... then the Report
    for result in cw.check("nda", load_suite("nda")):
        print(result.key, result.label, result.confidence)

Chat threads persist in ``<data_dir>/checkpoints.sqlite`` (LangGraph's SQLite checkpointer), so
a follow-up question reuses the thread's research and a thread can be resumed by its id.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel, Field

from agents.checker import build_checker
from agents.researcher import build_researcher
from agents.reviewer import build_reviewer
from clausewise.core.config import Settings, load_settings
from clausewise.core.report import Report
from clausewise.core.results import CheckResult, IngestResult, ProvisionResult
from clausewise.runtime import Runtime
from graphs.qa_graph import QADependencies, build_qa_graph
from indexes.store import ContractIndex
from tools.checks.suites import Hypothesis, Suite
from tools.journal import ResultJournal, batch_key
from tools.retrieval.graph import open_graph
from tools.review.provisions import ProvisionList


class ProgressEvent(BaseModel):
    """Something happened during an answer: a turn started, research found spans, a draft..."""

    event: str
    turn: int | None = None
    of: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class BatchItem(BaseModel):
    """One decided (contract, item) of a batch; ``resumed`` when read back from its journal."""

    contract_id: str
    result: CheckResult | ProvisionResult
    resumed: bool = False


class Clarification(BaseModel):
    """The graph paused to ask the user a question (chat only); answer with ``ChatThread.reply``."""

    thread_id: str
    question: str


def _events(chunk: dict[str, Any]) -> ProgressEvent:
    payload = dict(chunk)
    return ProgressEvent(
        event=payload.pop("event"), turn=payload.pop("turn", None), of=payload.pop("of", None), data=payload
    )


class Clausewise:
    def __init__(self, settings: Settings | None = None, runtime: Runtime | None = None) -> None:
        self.runtime = runtime or Runtime(settings or load_settings())
        self.settings = self.runtime.settings

    def ingest(self, path: str | Path, contract_id: str | None = None, force: bool = False) -> IngestResult:
        return self.runtime.archivist().ingest(Path(path), contract_id=contract_id, force=force)

    def _graph(self, index: ContractIndex, checkpointer: Any = None) -> CompiledStateGraph:
        deps = QADependencies(
            settings=self.settings,
            researcher=build_researcher(self.runtime, index, self.runtime.reranker()),
            questioner=self.runtime.chat_model("questioner"),
            writer=self.runtime.chat_model("writer"),
            ledger=self.runtime.ledger,
        )
        return build_qa_graph(deps, checkpointer)

    @staticmethod
    def _request(
        question: str, context: str, instructions: str, turns: int | None, interactive: bool
    ) -> dict[str, Any]:
        return {
            "question": question,
            "context": context,
            "instructions": instructions,
            "max_turns": turns,
            "interactive": interactive,
        }

    def ask_stream(
        self,
        contract: str,
        question: str,
        *,
        context: str = "",
        instructions: str = "",
        turns: int | None = None,
    ) -> Iterator[ProgressEvent | Report]:
        """Progress events as they happen, then the report (last item)."""
        index = self.runtime.store.open(contract)
        try:
            graph = self._graph(index)
            final: dict[str, Any] = {}
            for mode, chunk in graph.stream(
                self._request(question, context, instructions, turns, False), stream_mode=["custom", "values"]
            ):
                if mode == "custom":
                    yield _events(chunk)
                else:
                    final = chunk
            yield final["report"]
        finally:
            index.close()

    def ask(self, contract: str, question: str, **options: Any) -> Report:
        report: Report | None = None
        for item in self.ask_stream(contract, question, **options):
            if isinstance(item, Report):
                report = item
        assert report is not None
        return report

    def check(self, contract: str, suite: Suite, *, report: bool = False) -> Iterator[CheckResult]:
        """One result per hypothesis of ``suite``, as each is decided; with ``report``, each
        result also carries the Interrogator's full report on the hypothesis (Markdown)."""
        index = self.runtime.store.open(contract)
        try:
            checker = build_checker(self.runtime, index)
            with open_graph(
                index.path, self.runtime.embedder, enabled=self.settings.retrieval.graph
            ) as graph:
                for hypothesis in suite.hypotheses:
                    result = checker.check(hypothesis, graph)
                    if report:
                        result.report = self.ask(contract, as_question(hypothesis)).to_markdown()
                    yield result
        finally:
            index.close()

    def check_batch(
        self, files: list[Path], suite: Suite, *, report: bool = False, fresh: bool = False
    ) -> Iterator[BatchItem]:
        """Every file x every hypothesis, resumable (see :meth:`_batch`)."""
        return self._batch(
            "checks",
            files,
            suite.model_dump_json() + str(report),
            [h.key for h in suite.hypotheses],
            CheckResult,
            lambda contract, keys: self.check(
                contract,
                Suite(name=suite.name, hypotheses=[h for h in suite.hypotheses if h.key in keys]),
                report=report,
            ),
            fresh,
        )

    def review(self, contract: str, provisions: ProvisionList) -> Iterator[ProvisionResult]:
        """One result per provision, as each is reviewed."""
        index = self.runtime.store.open(contract)
        try:
            reviewer = build_reviewer(self.runtime, index)
            with open_graph(
                index.path, self.runtime.embedder, enabled=self.settings.retrieval.graph
            ) as graph:
                for provision in provisions.provisions:
                    yield reviewer.review(provision, graph)
        finally:
            index.close()

    def review_batch(
        self, files: list[Path], provisions: ProvisionList, *, fresh: bool = False
    ) -> Iterator[BatchItem]:
        """Every file (a data room) x every provision, resumable (see :meth:`_batch`)."""
        return self._batch(
            "reviews",
            files,
            provisions.model_dump_json(),
            [p.key for p in provisions.provisions],
            ProvisionResult,
            lambda contract, keys: self.review(
                contract,
                provisions.model_copy(
                    update={"provisions": [p for p in provisions.provisions if p.key in keys]}
                ),
            ),
            fresh,
        )

    def _batch(
        self,
        kind: str,
        files: list[Path],
        playbook: str,
        keys: list[str],
        model: type[Any],
        run: Callable[[str, set[str]], Iterator[Any]],
        fresh: bool,
    ) -> Iterator[BatchItem]:
        """Every file x every item, ingesting as needed. Resumable: results already in this
        batch's journal (``<data_dir>/<kind>/``, keyed by the files, the playbook and the settings
        that change a result) are yielded again as ``resumed`` instead of being redone, unless
        ``fresh``."""
        relevant = self.settings.model_dump_json(include={"retrieval", "checks", "review", "models"})
        key = batch_key(kind, *(str(f.resolve()) for f in files), playbook, relevant)
        journal = ResultJournal(self.settings.paths.data_dir / kind / f"{key}.jsonl", model)
        if fresh:
            journal.path.unlink(missing_ok=True)
        done = journal.done()
        for path in files:
            contract_id = self.ingest(path).contract_id
            for item_key in keys:
                if (contract_id, item_key) in done:
                    yield BatchItem(
                        contract_id=contract_id, result=done[(contract_id, item_key)], resumed=True
                    )
            pending = {k for k in keys if (contract_id, k) not in done}
            if pending:
                for result in run(contract_id, pending):
                    journal.record(contract_id, result)
                    yield BatchItem(contract_id=contract_id, result=result, resumed=False)

    @contextlib.contextmanager
    def chat(self, contract: str, thread_id: str | None = None) -> Iterator[ChatThread]:
        """A conversation on one contract (resumable by ``thread_id``)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        index = self.runtime.store.open(contract)
        path = self.settings.paths.data_dir / "checkpoints.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with SqliteSaver.from_conn_string(str(path)) as saver:
                yield ChatThread(
                    self._graph(index, saver), thread_id or uuid.uuid4().hex[:12], index.contract_id
                )
        finally:
            index.close()


class ChatThread:
    """One conversation. ``ask`` streams events and ends with a Report, or with a Clarification
    when the question is ambiguous (then call ``reply``)."""

    def __init__(self, graph: Any, thread_id: str, contract_id: str) -> None:
        self.graph = graph
        self.thread_id = thread_id
        self.contract_id = contract_id
        self.config = {"configurable": {"thread_id": f"{contract_id}:{thread_id}"}}

    def _run(self, payload: Any) -> Iterator[ProgressEvent | Report | Clarification]:
        final: dict[str, Any] = {}
        for mode, chunk in self.graph.stream(payload, self.config, stream_mode=["custom", "values"]):
            if mode == "custom":
                yield _events(chunk)
            else:
                final = chunk
        pending = self.graph.get_state(self.config)
        interrupts = [i for task in pending.tasks for i in task.interrupts]
        if interrupts:
            yield Clarification(thread_id=self.thread_id, question=interrupts[0].value["clarifying_question"])
        elif final.get("report") is not None:
            yield final["report"]

    def ask(
        self, question: str, *, context: str = "", instructions: str = "", turns: int | None = None
    ) -> Iterator[ProgressEvent | Report | Clarification]:
        return self._run(Clausewise._request(question, context, instructions, turns, True))

    def reply(self, answer: str) -> Iterator[ProgressEvent | Report | Clarification]:
        from langgraph.types import Command

        return self._run(Command(resume=answer))

    def history(self) -> list[str]:
        """Questions answered so far in this thread."""
        values = self.graph.get_state(self.config).values
        return list(dict.fromkeys(f.question for f in values.get("findings", []) if f.turn == 1))


def as_question(hypothesis: Hypothesis) -> str:
    """A hypothesis asked as a question for the Interrogator."""
    text = hypothesis.text.rstrip(".")
    return f"Does the contract provide that {text[:1].lower()}{text[1:]}? Look for exceptions."
