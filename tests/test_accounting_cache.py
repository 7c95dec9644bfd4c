"""Token/time accounting per role, prompt budgets, and the disk cache of completions."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import HumanMessage

from clausewise.core.backends.accounting import UsageLedger, estimate_tokens, truncate_to_tokens
from clausewise.core.backends.cache import CompletionCache
from tests.fakes import ScriptedChatModel


def test_ledger_records_every_call_with_its_role() -> None:
    ledger = UsageLedger()
    model = ScriptedChatModel(replies=["first answer", "second answer here"], callbacks=[ledger])
    model.with_config(metadata={"clausewise_role": "questioner"}).invoke(
        [HumanMessage(content="one two three")]
    )
    model.with_config(metadata={"clausewise_role": "judge"}).invoke([HumanMessage(content="four five")])
    assert [(r.role, r.prompt_tokens, r.completion_tokens) for r in ledger.records] == [
        ("questioner", 3, 2),
        ("judge", 2, 3),
    ]
    totals = ledger.totals()
    assert totals["calls"] == 2 and totals["prompt_tokens"] == 5 and totals["completion_tokens"] == 5
    assert totals["models"] == ["scripted"] and all(r.seconds >= 0 for r in ledger.records)


def test_cache_serves_repeated_calls_without_the_model(tmp_path: Path) -> None:
    cache = CompletionCache(tmp_path / "completions.sqlite")
    ledger = UsageLedger()
    model = ScriptedChatModel(replies=["the answer"], cache=cache, callbacks=[ledger])
    question = [HumanMessage(content="What is the governing law?")]
    assert model.invoke(question).content == "the answer"
    assert model.invoke(question).content == "the answer"  # the script has one reply: the cache served this
    assert len(model.calls) == 1 and len(cache) == 1
    assert [r.cached for r in ledger.records] == [False, True]
    # a different prompt or different parameters are different keys
    other = ScriptedChatModel(replies=["fresh"], cache=cache)
    assert other.invoke([HumanMessage(content="Another question?")]).content == "fresh"
    # the cache survives the process (a new connection on the same file)
    reopened = ScriptedChatModel(replies=[], cache=CompletionCache(tmp_path / "completions.sqlite"))
    assert reopened.invoke(question).content == "the answer"


def test_prompt_budgets() -> None:
    text = "word " * 1000
    assert estimate_tokens(text) == 1429
    cut = truncate_to_tokens(text, 100)
    assert estimate_tokens(cut) <= 100 and cut.endswith("word")
    assert truncate_to_tokens("short", 100) == "short"
