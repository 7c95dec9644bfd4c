"""Fusion, span arithmetic and character-level precision/recall, and quote verification."""

from __future__ import annotations

import pytest

from tools.citations import QuoteVerifier
from tools.retrieval.fusion import reciprocal_rank_fusion
from tools.retrieval.spans import covered, merge_spans, precision_recall


def test_rrf_scores_and_ranks() -> None:
    fused = reciprocal_rank_fusion(
        {"bm25": ["a", "b", "c"], "dense": ["b", "d"]}, {"bm25": 1.0, "dense": 2.0}, k=10
    )
    scores = {item: round(score, 6) for item, score, _ in fused}
    assert scores["b"] == round(1 / 12 + 2 / 11, 6)  # rank 2 in bm25, rank 1 in dense (weight 2)
    assert scores["a"] == round(1 / 11, 6) and scores["d"] == round(2 / 12, 6)
    assert [item for item, _, _ in fused] == ["b", "d", "a", "c"]
    assert {item: ranks for item, _, ranks in fused}["b"] == {"bm25": 2, "dense": 1}


def test_rrf_zero_weight_drops_a_ranking() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["a"], "graph": ["z"]}, {"bm25": 1.0, "graph": 0.0})
    assert [item for item, _, _ in fused] == ["a"]


def test_span_helpers() -> None:
    assert merge_spans([(10, 20), (0, 5), (15, 30), (30, 31)]) == [(0, 5), (10, 31)]
    assert covered((12, 18), [(10, 15), (15, 20)])
    assert not covered((12, 25), [(10, 20)])


def test_precision_recall_by_hand() -> None:
    gold = [("a.txt", (100, 200)), ("a.txt", (300, 350))]
    # 50 of 100 retrieved chars are gold; 50 of 150 gold chars are retrieved
    assert precision_recall([("a.txt", (150, 250))], gold) == (0.5, pytest.approx(1 / 3))
    # overlapping retrieved spans count once: union (150, 260) has 50 relevant chars of 110
    p, r = precision_recall([("a.txt", (150, 250)), ("a.txt", (200, 260))], gold)
    assert p == pytest.approx(50 / 110) and r == pytest.approx(50 / 150)
    # another file's span adds retrieved characters but never relevant ones
    p, r = precision_recall([("a.txt", (300, 350)), ("b.txt", (300, 350))], gold)
    assert (p, r) == (0.5, pytest.approx(50 / 150))
    assert precision_recall([], gold) == (0.0, 0.0)


CONTRACT = (
    "4.2 The Receiving Party shall keep all Confidential Information strictly confi-\n"
    "dential and shall not disclose it.  Either party may terminate this Agreement on\n"
    "thirty (30) days' notice. Either party may terminate this Agreement for cause."
)


def test_quotes_verify_exactly_or_with_whitespace_and_ocr_hyphens() -> None:
    verifier = QuoteVerifier(CONTRACT)
    exact = verifier.verify("keep all Confidential Information")
    assert exact is not None and exact.exact and CONTRACT[exact.span[0] : exact.span[1]] == exact.text
    loose = verifier.verify("strictly confidential and shall not disclose it. Either party")
    assert loose is not None and not loose.exact
    assert loose.text.startswith("strictly confi-\ndential") and loose.text.endswith("Either party")
    assert CONTRACT[loose.span[0] : loose.span[1]] == loose.text


@pytest.mark.parametrize(
    "fabricated",
    [
        "keep all confidential information",
        "Either party may terminate this Agreement on sixty (60) days",
        "shall keep Confidential Information",
        "no such words anywhere",
        "it",
    ],
)
def test_anything_else_is_rejected(fabricated: str) -> None:
    assert QuoteVerifier(CONTRACT).verify(fabricated) is None


def test_the_occurrence_nearest_the_claimed_span_wins() -> None:
    verifier = QuoteVerifier(CONTRACT)
    second = CONTRACT.rindex("Either party may terminate this Agreement")
    found = verifier.verify("Either party may terminate this Agreement", hint=(second, second + 40))
    assert found is not None and found.span[0] == second
    first = verifier.verify("Either party may terminate this Agreement", hint=(0, 10))
    assert first is not None and first.span[0] == CONTRACT.index("Either party")
    assert verifier.is_at("Either party may terminate this Agreement", found.span)


def test_quotation_marks_are_kept_when_the_contract_has_them() -> None:
    text = "1.1 \u201cAffiliate\u201d means any entity that controls a Party. 1.2 The Term is two years."
    verifier = QuoteVerifier(text)
    definition = "\u201cAffiliate\u201d means any entity that controls a Party."
    start = text.index(definition)
    span = (start, start + len(definition))
    # a source showing the whole definition sentence is the contract's text at its span
    assert verifier.is_at(definition, span)
    assert verifier.verify(definition) == verifier.verify(definition, span)
    assert verifier.verify(definition).text == definition
    # marks the model put around a quote are still not the contract's
    wrapped = verifier.verify('"The Term is two years."')
    assert wrapped is not None and wrapped.text == "The Term is two years."


def test_a_near_miss_quote_is_grounded_to_its_sentence_and_nothing_looser() -> None:
    from tools.citations import closest_sentence

    text = (
        "5.1 Payment. The Customer shall pay each invoice within thirty (30) days of receipt. "
        "Late amounts bear interest at two percent per month. 5.2 Taxes are extra."
    )
    passage = (0, len(text))
    grounded = closest_sentence(
        text, passage, "the Customer must pay every invoice within thirty days of receipt"
    )
    assert grounded is not None and not grounded.exact
    assert grounded.text == "The Customer shall pay each invoice within thirty (30) days of receipt."
    assert text[grounded.span[0] : grounded.span[1]] == grounded.text
    assert closest_sentence(text, passage, "the Supplier may terminate for convenience at any time") is None
    assert closest_sentence(text, passage, "thirty days") is None  # too short to ground
    assert (
        closest_sentence(text, (84, len(text)), "Customer shall pay each invoice within thirty days") is None
    )


def test_long_quotes_of_two_lines_are_each_checked_whole() -> None:
    from clausewise.core.report import Source
    from clausewise.core.results import Draft
    from tools.report_checks import check, evidence_findings

    first = "3.1 The obligations do not apply to information that " + "; ".join(
        f"({c}) is public by route number {i} described at some length here" for i, c in enumerate("abcdefgh")
    )
    second = "4.2 The Recipient may retain copies where " + ", ".join(
        f"condition {i} of the backup policy is met in full" for i in range(10)
    )
    text = f"{first}.\n\n{second}."
    assert min(len(first), len(second)) > 400  # quoted whole: the list is the answer
    sources = [
        Source(
            number=n,
            contract_id="c",
            node_id=node,
            pages=[1],
            span=(text.index(q), text.index(q) + len(q)),
            quote=q,
        )
        for n, node, q in ((1, "3.1", first), (2, "4.2", second))
    ]
    lines = [f"As to part {n}: {evidence_findings([s], quote_chars=800)[0]}." for n, s in enumerate(sources)]
    verifier = QuoteVerifier(text)
    draft = Draft(title="t", summary="s", preliminary_answer=" ".join(lines))
    assert not check(draft, sources, verifier)  # the closing mark of one is not the opening of the next
    forged = draft.model_copy(
        update={"preliminary_answer": draft.preliminary_answer.replace("route number 5", "route 9")}
    )
    assert check(forged, sources, verifier).bad_quotations == [first.replace("route number 5", "route 9")]
