"""The report's short answer, decided by the strongest evidence there is.

- A "does the agreement provide that ...?" question: the hypothesis classifier's ruling decides
  (Entailment = yes, Contradiction = no, NotMentioned = not addressed; ``eval contractnli`` shows
  it far ahead of the 1.5B model reading passages), with the ruling's evidence as sources.
- Another yes/no question: the writer model's verdict, with the sources its answer cites.
- A question asking for a duration, date, law, amount or notice period: the value read from the
  verified sources, the one whose sentence best answers the question (:mod:`tools.value_reading`:
  "how long must ... be kept confidential" is answered by the survival clause, not by the
  agreement's term); among equally good ones the value the model names, then those its answer
  cites. A party question keeps the model's value, each name of which must occur in a source.

When the model's verdict or value differs from the deciding component's, the short answer says
so (``disagreement``) instead of picking silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clausewise.core.report import REFERENCE, ShortAnswer, Source, Verdict
from clausewise.core.results import Draft, Label, Ruling
from tools.question_kind import QuestionKind
from tools.value_reading import (
    READ_AS,
    PartyReading,
    ValueReading,
    party_reading,
    qualification,
    value_readings,
)
from tools.values import ValueMention, find_values, same_value

VERDICT_OF_LABEL: dict[Label, Verdict] = {
    "Entailment": "yes",
    "Contradiction": "no",
    "NotMentioned": "not addressed",
}
_VERDICT_WORDS = re.compile(r"^\W*(yes|no|partly|partially|not addressed|not mentioned|unclear)\b", re.I)


def model_verdict(draft: Draft) -> Verdict | None:
    """The writer's verdict: its short answer's first word, else the preliminary answer's."""
    for text in (draft.short_answer, draft.preliminary_answer):
        match = _VERDICT_WORDS.match(text or "")
        if match:
            word = match.group(1).lower()
            if word in ("partially",):
                return "partly"
            if word in ("not mentioned", "unclear"):
                return "not addressed"
            return word  # type: ignore[return-value]
    return None


def _cited(text: str, numbers: set[int]) -> list[int]:
    return [n for n in dict.fromkeys(int(m) for m in REFERENCE.findall(text)) if n in numbers]


def verdict_answer(
    draft: Draft, sources: Sequence[Source], ruling: Ruling | None, ruling_sources: list[int]
) -> ShortAnswer:
    numbers = {s.number for s in sources}
    said = model_verdict(draft)
    if ruling is not None:
        verdict = VERDICT_OF_LABEL[ruling.label]
        disagreement = ""
        if said is not None and said != verdict:
            disagreement = (
                f"the writer model answered '{said}'; the hypothesis classifier decided '{verdict}' "
                f"(confidence {ruling.confidence:.2f}), and the short answer follows the classifier"
            )
        return ShortAnswer(
            form="verdict",
            verdict=verdict,
            sources=[n for n in ruling_sources if n in numbers],
            decided_by="hypothesis classifier",
            rationale=ruling.rationale,
            disagreement=disagreement,
        )
    cited = _cited(f"{draft.short_answer} {draft.preliminary_answer}", numbers)
    verdict = said or ("not addressed" if not draft.addressed else None)
    return ShortAnswer(
        form="verdict",
        verdict=verdict or "not addressed",
        sources=cited if verdict else [],
        decided_by="model",
    )


def best_reading(
    question: str,
    value_type: str,
    sources: Sequence[Source],
    claimed: Sequence[ValueMention] = (),
    cited: Sequence[int] = (),
) -> tuple[Source, ValueReading] | None:
    """The value among ``sources`` that best answers ``question`` (:mod:`tools.value_reading`);
    among equally good ones a value the model ``claimed``, then one from a source it ``cited``."""
    rank = {number: i for i, number in enumerate(cited)}
    scored = [
        (
            -reading.score,
            not any(same_value(reading.mention, c) for c in claimed),
            rank.get(source.number, len(rank)),
            position,
            source,
            reading,
        )
        for position, source in enumerate(sources)
        for reading in value_readings(question, value_type, source.quote)
    ]
    if not scored:
        return None
    best = min(scored, key=lambda entry: entry[:4])
    return best[4], best[5]


def _party_answer(source: Source, parties: PartyReading, model_text: str) -> ShortAnswer:
    """The parties as ``source`` (a preamble) names them; a disagreement when the writer's
    ``model_text`` names none of them."""
    names = [name for name, _ in parties.parties]
    disagreement = ""
    if model_text and not any(name.lower() in model_text.lower() for name in names):
        disagreement = (
            f"the writer model answered '{model_text}'; source [{source.number}] names "
            f"{' and '.join(names)}, and the short answer follows the source"
        )
    return ShortAnswer(
        form="value",
        value=parties.value(),
        value_type="party",
        normalized=" and ".join(name.lower() for name in names),
        sources=[source.number],
        decided_by="value reader",
        rationale=f"read from source [{source.number}]",
        disagreement=disagreement,
    )


def value_answer(kind: QuestionKind, draft: Draft, sources: Sequence[Source]) -> ShortAnswer:
    numbers = {s.number for s in sources}
    value_type = kind.value or ""
    cited = _cited(f"{draft.short_answer} {draft.preliminary_answer}", numbers)
    model_text = REFERENCE.sub("", draft.short_answer).strip(" .")
    if value_type == "party":
        read = next(((s, r) for s in sources if (r := party_reading(s.quote)) is not None), None)
        if read is not None:
            return _party_answer(*read, model_text)
    if value_type == "party" or value_type not in READ_AS:
        found = model_text and all(
            any(name.lower() in s.quote.lower() for s in sources)
            for name in re.split(r"\s*(?:,|;|\band\b)\s*", model_text)
            if name
        )
        return ShortAnswer(
            form="value",
            value=model_text if found else "",
            value_type=value_type,
            normalized=model_text.lower() if found else "",
            sources=cited if found else [],
            decided_by="model",
        )
    types = READ_AS[value_type]
    claimed = find_values(model_text, types) or find_values(draft.preliminary_answer, types)
    best = best_reading(kind.question, value_type, sources, claimed, cited)
    if best is None:
        return ShortAnswer(
            form="value",
            value=claimed[0].text if claimed else "",
            value_type=value_type,
            normalized=claimed[0].normalized if claimed else "",
            sources=cited if claimed else [],
            decided_by="model",
        )
    source, reading = best
    mention = reading.mention
    disagreement = ""
    if claimed and not any(same_value(mention, c) for c in claimed):
        disagreement = (
            f"the writer model answered '{claimed[0].text}'; source [{source.number}] states "
            f"'{mention.text}', and the short answer follows the source"
        )
    return ShortAnswer(
        form="value",
        value=mention.text,
        value_type=value_type,
        normalized=mention.normalized,
        sources=[source.number],
        decided_by="value reader",
        rationale=f"read from source [{source.number}]",
        disagreement=disagreement,
        qualification=qualification(reading),
    )


def states_value(text: str, answer: ShortAnswer) -> bool:
    """Whether ``text`` states the value of ``answer`` (in any wording of it)."""
    types = READ_AS.get(answer.value_type, ())
    wanted = find_values(answer.value, types)
    return any(same_value(m, w) for m in find_values(text, types) for w in wanted)


def short_answer(
    kind: QuestionKind,
    draft: Draft,
    sources: Sequence[Source],
    ruling: Ruling | None = None,
    ruling_sources: list[int] | None = None,
) -> ShortAnswer | None:
    """The short answer of a report on a question of ``kind`` (None for an open question)."""
    if kind.form == "verdict":
        return verdict_answer(draft, sources, ruling, ruling_sources or [])
    if kind.form == "value":
        return value_answer(kind, draft, sources)
    return None
