"""Structured output: repair of common small-model mistakes, one named retry, then a typed error."""

from __future__ import annotations

import json
import math

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from clausewise.core.backends.structured import (
    invoke_structured,
    schema_format,
    validate_reply,
    yes_probability,
)
from clausewise.core.errors import StructuredOutputError
from tests.fakes import ScriptedChatModel


class Verdict(BaseModel):
    label: str = Field(pattern="^(Entailment|Contradiction|NotMentioned)$")
    confidence: float = Field(ge=0, le=1)


@pytest.mark.parametrize(
    "answer",
    [
        '{"label": "Entailment", "confidence": 0.9}',
        '```json\n{"label": "Entailment", "confidence": 0.9}\n```',
        'Sure! Here is the JSON:\n{"label": "Entailment", "confidence": 0.9}\nLet me know if you need more.',
        '{"label": "Entailment", "confidence": 0.9,}',
        '{"label": "Entailment", "confidence": 0.9, "cited": True}',  # a Python literal
        '{"label": "Entailment", "confidence": 0.9',  # cut off by the token limit
    ],
)
def test_replies_are_read_despite_common_mistakes(answer: str) -> None:
    verdict = validate_reply(answer, Verdict)
    assert verdict.label == "Entailment" and verdict.confidence == 0.9


def test_prose_is_not_read_as_a_reply() -> None:
    with pytest.raises(ValueError, match="no JSON"):
        validate_reply("The clause is entailed by the contract.", Verdict)


def test_valid_first_answer_needs_one_call() -> None:
    model = ScriptedChatModel(replies=['{"label": "Contradiction", "confidence": 0.7}'])
    verdict = invoke_structured(model, [HumanMessage(content="judge")], Verdict)
    assert verdict == Verdict(label="Contradiction", confidence=0.7)
    assert len(model.calls) == 1


def test_invalid_answer_is_retried_once_with_the_error_named() -> None:
    model = ScriptedChatModel(
        replies=['{"label": "Maybe", "confidence": 0.7}', '{"label": "NotMentioned", "confidence": 0.6}']
    )
    verdict = invoke_structured(model, [HumanMessage(content="judge")], Verdict)
    assert verdict.label == "NotMentioned"
    retry_messages = model.calls[1][0]
    assert retry_messages[1].content == '{"label": "Maybe", "confidence": 0.7}'  # its own answer, echoed back
    assert "label" in retry_messages[2].content and "pattern" in retry_messages[2].content


def test_two_bad_answers_raise_a_typed_error_not_an_empty_result() -> None:
    model = ScriptedChatModel(replies=["I think it is entailed.", '{"label": "Entailment"}'])
    with pytest.raises(StructuredOutputError, match=r"Verdict after 2 attempt\(s\).*confidence"):
        invoke_structured(model, [HumanMessage(content="judge")], Verdict)


class Quote(BaseModel):
    evidence: int
    quote: str = Field(min_length=3)


class CitedAnswer(BaseModel):
    answer: str
    citations: list[Quote] = Field(default_factory=list)


class Addressed(BaseModel):
    answer: str
    addressed: bool = True


def test_a_reply_cut_inside_a_quote_keeps_the_citations_it_completed_in_one_call() -> None:
    cut = (
        '{"answer": "Yes, for three years.", "citations": [{"evidence": 1, "quote": "three (3) years"}, '
        '{"evidence": 4, "quote": "shall survive termination"}, {"evidence": 2, "quote": "except that the Rec'
    )
    model = ScriptedChatModel(replies=[cut])
    answer = invoke_structured(model, [HumanMessage(content="answer")], CitedAnswer)
    assert answer.answer == "Yes, for three years."
    assert [(c.evidence, c.quote) for c in answer.citations] == [
        (1, "three (3) years"),
        (4, "shall survive termination"),
    ]
    assert len(model.calls) == 1  # no second call for what the first one completed


def test_a_reply_cut_inside_an_element_drops_that_element_not_its_fields() -> None:
    # cut after the evidence number: {"evidence": 2} alone would fail the schema (no quote)
    cut = '{"answer": "No.", "citations": [{"evidence": 1, "quote": "no licence"}, {"evidence": 2, "quo'
    answer = invoke_structured(ScriptedChatModel(replies=[cut]), [HumanMessage(content="a")], CitedAnswer)
    assert [c.evidence for c in answer.citations] == [1]


def test_a_cut_never_drops_a_member_the_model_wrote() -> None:
    # "addressed" was being written when the reply stopped: no reading may let its default stand in
    cut = '{"answer": "Not addressed.", "addressed": fal'
    with pytest.raises(ValueError):
        validate_reply(cut, Addressed)


def test_a_reply_cut_inside_its_answer_is_retried() -> None:
    model = ScriptedChatModel(
        replies=['{"answer": "The Receiving Party may disclo', '{"answer": "It may.", "citations": []}']
    )
    answer = invoke_structured(model, [HumanMessage(content="answer")], CitedAnswer)
    assert answer.answer == "It may."
    assert len(model.calls) == 2
    assert "cut off" in model.calls[1][0][2].content  # the retry asks for a briefer answer


def test_schema_constraint_is_requested_when_the_backend_supports_it() -> None:
    constrained = ScriptedChatModel(
        replies=['{"label": "Entailment", "confidence": 1}'], supports_json_schema=True
    )
    invoke_structured(constrained, [HumanMessage(content="judge")], Verdict)
    assert constrained.calls[0][1]["response_format"] == schema_format(Verdict)
    plain = ScriptedChatModel(replies=['{"label": "Entailment", "confidence": 1}'])
    invoke_structured(
        plain.with_config(metadata={"clausewise_role": "judge"}), [HumanMessage(content="x")], Verdict
    )
    assert "response_format" not in plain.calls[0][1]
    assert json.dumps(schema_format(Verdict))  # serialisable for any server


def test_yes_probability_sums_case_and_space_variants() -> None:
    top = [
        {"token": "Yes", "logprob": math.log(0.5)},
        {"token": " yes", "logprob": math.log(0.1)},
        {"token": "No", "logprob": math.log(0.2)},
        {"token": "Maybe", "logprob": math.log(0.2)},
    ]
    model = ScriptedChatModel(replies=["Yes"], supports_logprobs=True, logprobs=top)
    assert yes_probability(model, [HumanMessage(content="relevant?")]) == pytest.approx(0.6 / 0.8)
    assert model.calls[0][1]["max_tokens"] == 1 and model.calls[0][1]["top_logprobs"] == 20
    assert yes_probability(ScriptedChatModel(replies=["Yes"]), [HumanMessage(content="x")]) is None


class SlowModel(ScriptedChatModel):
    """Streams its reply a word every ``pause`` seconds and records whether it was stopped."""

    pause: float = 0.05
    stopped: bool = False

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        import time

        from langchain_core.messages import AIMessageChunk
        from langchain_core.outputs import ChatGenerationChunk

        text = self._next(messages, kwargs)
        try:
            for word in text.split(" "):
                time.sleep(self.pause)
                yield ChatGenerationChunk(message=AIMessageChunk(content=word + " "))
        except GeneratorExit:
            self.stopped = True
            raise


def test_a_bounded_call_is_cut_at_its_time_and_asked_once() -> None:
    reply = '{"label": "Entailment", "confidence": 0.9, "note": "' + "word " * 200 + '"}'
    slow = SlowModel(replies=[reply], repeat_last=True)
    with pytest.raises(StructuredOutputError):
        invoke_structured(slow, [HumanMessage(content="?")], Verdict, retries=0, seconds=0.3)
    assert slow.stopped and len(slow.calls) == 1  # generation stopped, never retried
    quick = SlowModel(replies=['{"label": "Entailment", "confidence": 0.9}'], pause=0.0)
    assert invoke_structured(quick, [HumanMessage(content="?")], Verdict, seconds=5).label == "Entailment"
