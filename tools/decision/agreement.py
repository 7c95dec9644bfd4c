"""Rule "the writer answers as decided": the writer's text never gives another verdict than the
short answer.

The short answer of a yes/no question is settled by a decider before anything is written
(:mod:`agents.decider`); the writer then drafts a summary, findings and a preliminary answer
around it. A small writer often opens them with its own "Yes" or "No", and under a short answer
of "unclear" (the decider not confident either way) that bare verdict is a guess the report would
show beside its own bottom line ("Is liability capped?": short answer unclear, preliminary answer
"Yes"). Being one or two words, such a sentence is no claim for the support check to read, so
this rule reads it: a written sentence that opens with a verdict the decision does not give is a
failure, repaired once and otherwise removed, like an unsupported claim.

A writer also answers "no" without the word: the bare "not addressed", or the question restated
as absent ("The agreement does not explicitly state that the receiving party shall not use ..."
under "Does the agreement provide that the receiving party shall not use ...?"). Under a "yes"
decided from a clause that says it, that sentence denies the report's own bottom line, and the
NLI classifier, weak on "does not state that ... shall not", may find it entailed. Both read as
the verdict "not addressed": a "no" to the question. Under a short answer of "unclear" it is a
guess the decider declined to make (a check-half report said "not addressed" beside a contract
that had the provision in other words), so it agrees with "no" only; an absence statement that
keeps the question open ("The contract does not specify whether ...") is the verdict "unclear",
which denies only a "yes". An absence statement about something else than the question ("does
not state the notice period") is no verdict: the sentence must restate the question, with at most
one word of its own (the measure of ``the question restated``, :mod:`tools.decision.support`).

A yes/no question restated is its answer (rule of that name, :mod:`tools.decision.support`): "The
agreement does not guarantee a party the best price ..." under "Does the agreement guarantee a
party the best price ...?" answers no, the same words without the denial answer yes. Under a
short answer of "unclear", either is a guess the decider declined to make (a check-half report
showed the "no" beside a contract that had the provision in other words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tools.decision.support import keeps_open, restated_answer, restates_absence
from tools.report_checks import prose_sentences

#: A sentence that opens by answering yes or no: "Yes.", "No, the agreement ...", "Yes - ...".
#: "No party may assign ..." opens with a determiner, not a verdict, and is not one.
_VERDICT_OPENING = re.compile(r"^\W*(yes|no)\s*(?:[,.;:!\u2013\u2014-]|$)", re.IGNORECASE)
#: "not addressed" as the whole sentence: the writer's verdict in the report's own words.
_NOT_ADDRESSED = re.compile(r"^\W*not\s+addressed\W*$", re.IGNORECASE)
#: The decided verdicts a written verdict agrees with: "not addressed" is a "no" to "does the
#: agreement provide that ...?"; "unclear" (the question left open: "does not specify whether")
#: denies only a "yes".
AGREES_WITH = {
    "yes": frozenset({"yes"}),
    "no": frozenset({"no", "not addressed"}),
    "not addressed": frozenset({"no", "not addressed"}),
    "unclear": frozenset({"unclear", "no", "not addressed"}),
}


@dataclass(frozen=True)
class Disagreement:
    """A written sentence whose verdict is not the short answer's."""

    claim: str
    verdict: str  # what the sentence answers: yes, no, not addressed or unclear
    decided: str  # the short answer's verdict

    def describe(self) -> str:
        return (
            f'the statement "{self.claim}" answers {self.verdict}, but the short answer decided from '
            f"the contract is {self.decided}"
        )


def written_verdict(sentence: str, question: str = "") -> str | None:
    """The verdict ``sentence`` gives: the "yes" / "no" it opens with; "not addressed" when that
    is the whole sentence or the sentence says ``question`` is not in the contract ("unclear"
    when it says the contract leaves it open); the answer of ``question`` restated; else None."""
    match = _VERDICT_OPENING.match(sentence.strip())
    if match:
        return match.group(1).lower()
    if question and restates_absence(sentence, question):
        return "unclear" if keeps_open(sentence) else "not addressed"
    if _NOT_ADDRESSED.match(sentence):
        return "not addressed"
    return restated_answer(sentence, question) if question else None


def disagreements(texts: Sequence[str], decided: str | None, question: str = "") -> list[Disagreement]:
    """The sentences of ``texts`` whose verdict (:func:`written_verdict` under ``question``)
    ``decided`` (the short answer's verdict; None: no verdict was decided, nothing to disagree
    with) does not give."""
    if not decided:
        return []
    found = []
    for text in texts:
        for sentence in prose_sentences(text):
            verdict = written_verdict(sentence, question)
            if verdict is not None and decided not in AGREES_WITH[verdict]:
                found.append(Disagreement(sentence.strip(), verdict, decided))
    return found
