"""Tenants are isolated in everything stored: contracts, chat threads, batch journals, exemplars
and cached completions. Tenant B's artefacts exist; tenant A, on the same data directory, must
not list, read, resume, ask, check, review or delete any of them, by id, by path or by an id
that tries to climb out of its folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from clausewise.api import Clausewise
from clausewise.core.config import load_settings
from clausewise.core.errors import ConfigError, ContractNotFound, ThreadNotFound
from tests.conftest import EXAMPLES
from tests.fakes import ScriptedChatModel
from tools.checks.suites import adhoc_suite
from tools.retrieval.exemplars import Exemplar
from tools.review.provisions import load_provisions

REFERENCES = [
    "mutual-nda",  # B's id
    "../b/mutual-nda",
    "../../tenants/b/contracts/mutual-nda",
    "mutual-nda.txt",  # the name of the file B ingested
]


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory, hub):
    from clausewise.runtime import Runtime

    root = tmp_path_factory.mktemp("tenants")
    overrides = {"paths": {"data_dir": str(root / "data")}, "retrieval": {"reranker": "none"}}
    a = Runtime(
        load_settings(overrides={**overrides, "paths": {**overrides["paths"], "tenant": "a"}}), hub=hub
    )
    b = Runtime(
        load_settings(overrides={**overrides, "paths": {**overrides["paths"], "tenant": "b"}}), hub=hub
    )
    folder = root / "room"
    folder.mkdir()
    shutil.copyfile(EXAMPLES / "mutual-nda.txt", folder / "mutual-nda.txt")
    b.archivist().ingest(folder / "mutual-nda.txt")
    return a, b, folder


def test_a_tenant_cannot_reach_anothers_contracts(tenants) -> None:
    a, b, folder = tenants
    assert [m.contract_id for m in b.store.manifests()] == ["mutual-nda"]
    assert a.store.manifests() == []
    api = Clausewise(runtime=a)
    references = [*REFERENCES, str(folder / "mutual-nda.txt"), str(b.store.layout.contract_dir("mutual-nda"))]
    for reference in references:
        with pytest.raises(ContractNotFound):
            a.store.open(reference)
        with pytest.raises(ContractNotFound):
            next(api.ask_stream(reference, "Which law governs?"))
        with pytest.raises(ContractNotFound):
            next(api.check(reference, adhoc_suite(["The agreement is governed by English law."])))
        with pytest.raises(ContractNotFound):
            next(api.review(reference, load_provisions("cuad")))
        with pytest.raises(ContractNotFound):
            a.store.delete(reference)
    assert b.store.open("mutual-nda").contract_id == "mutual-nda"  # B's contract is untouched


def test_a_tenant_name_cannot_point_into_another_tenant(tmp_path: Path) -> None:
    for name in ("../b", "b/../a", "a/b", ".hidden"):
        with pytest.raises(ConfigError):
            load_settings(overrides={"paths": {"data_dir": str(tmp_path), "tenant": name}})


def test_threads_are_the_tenants_own(tenants) -> None:
    a, b, _folder = tenants
    thread = b.threads.create("mutual-nda")
    assert [t.id for t in b.threads.list()] == [thread.id]
    assert a.threads.list() == []
    with pytest.raises(ThreadNotFound):
        a.threads.get(thread.id)
    for bad in ("../b/x", thread.id.upper(), ""):
        with pytest.raises(ThreadNotFound):
            b.threads.get(bad)
    # A cannot resume it even on a contract of its own with the same name
    a.archivist().ingest(EXAMPLES / "mutual-nda.txt")
    try:
        with pytest.raises(ThreadNotFound), Clausewise(runtime=a).chat("mutual-nda", thread.id):
            pass
    finally:
        a.store.delete("mutual-nda")
    assert a.threads.list() == []


def test_batch_journals_are_the_tenants_own(tenants) -> None:
    a, b, folder = tenants
    judge = json.dumps({"rationale": "r", "verdict": "supported", "confidence": 0.8, "evidence": [1]})
    suite = adhoc_suite(["The agreement is governed by English law."])
    settings = b.settings.model_copy(
        update={"checks": b.settings.checks.model_copy(update={"judge": "llm", "exemplars": 0})}
    )
    from clausewise.runtime import Runtime

    runs = {}
    for name, base in (("b", b), ("a", a)):
        runtime = Runtime(settings.model_copy(update={"paths": base.settings.paths}), hub=base.hub)
        runtime.chat_model = lambda role, progress=None: ScriptedChatModel(replies=[judge])  # type: ignore[method-assign]
        runs[name] = (
            runtime,
            list(Clausewise(runtime=runtime).check_batch([folder / "mutual-nda.txt"], suite)),
        )
    (runtime_b, items_b), (runtime_a, items_a) = runs["b"], runs["a"]
    assert [i.resumed for i in items_b] == [False]
    assert [i.resumed for i in items_a] == [False]  # B's journal of the same batch is not A's
    journals_a = list(runtime_a.journal_dir("checks").glob("*.jsonl"))
    journals_b = list(runtime_b.journal_dir("checks").glob("*.jsonl"))
    assert len(journals_a) == len(journals_b) == 1 and journals_a[0] != journals_b[0]
    assert runtime_a.journal_dir("checks").is_relative_to(runtime_a.tenant_dir)


def test_exemplars_are_the_tenants_own(tenants) -> None:
    a, b, _folder = tenants
    example = Exemplar(text="The Receiving Party may retain one copy.", label="Entailment", question="copies")
    assert b.exemplars.add([example]) == 1
    assert [e.text for e in b.exemplars.search("retain a copy", 1)] == [example.text]
    assert a.exemplars.examples() == [] and a.exemplars.search("retain a copy", 1) == []


def test_a_completion_cached_for_one_tenant_is_never_served_to_another(tenants) -> None:
    a, b, _folder = tenants
    llm = a.settings.models.llm.model_copy(update={"cache": "on"})
    prompt = [HumanMessage(content="Which law governs?")]

    def ask(runtime, reply: str) -> str:
        model = ScriptedChatModel(replies=[reply], cache=runtime.completion_cache(llm))
        return str(model.invoke(prompt).content)

    assert ask(b, "England (B's answer)") == "England (B's answer)"
    assert ask(a, "England (A's answer)") == "England (A's answer)"  # not B's cached reply
    assert ask(b, "a new reply") == "England (B's answer)"  # the cache works within a tenant
    assert a.completion_cache(llm).path != b.completion_cache(llm).path
