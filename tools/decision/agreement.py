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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tools.report_checks import prose_sentences

#: A sentence that opens by answering yes or no: "Yes.", "No, the agreement ...", "Yes - ...".
#: "No party may assign ..." opens with a determiner, not a verdict, and is not one.
_VERDICT_OPENING = re.compile(r"^\W*(yes|no)\s*(?:[,.;:!\u2013\u2014-]|$)", re.IGNORECASE)
#: The decided verdicts a written "yes" or "no" agrees with ("not addressed" is a "no" to
#: "does the agreement provide that ...?").
AGREES_WITH = {"yes": frozenset({"yes"}), "no": frozenset({"no", "not addressed"})}


@dataclass(frozen=True)
class Disagreement:
    """A written sentence whose verdict is not the short answer's."""

    claim: str
    verdict: str  # what the sentence answers: yes or no
    decided: str  # the short answer's verdict

    def describe(self) -> str:
        return (
            f'the statement "{self.claim}" answers {self.verdict}, but the short answer decided from '
            f"the contract is {self.decided}"
        )


def written_verdict(sentence: str) -> str | None:
    """The verdict ``sentence`` opens with ("yes" / "no"), or None."""
    match = _VERDICT_OPENING.match(sentence.strip())
    return match.group(1).lower() if match else None


def disagreements(texts: Sequence[str], decided: str | None) -> list[Disagreement]:
    """The sentences of ``texts`` that open with a verdict ``decided`` (the short answer's
    verdict; None: no verdict was decided, nothing to disagree with) does not give."""
    if not decided:
        return []
    found = []
    for text in texts:
        for sentence in prose_sentences(text):
            verdict = written_verdict(sentence)
            if verdict is not None and decided not in AGREES_WITH[verdict]:
                found.append(Disagreement(sentence.strip(), verdict, decided))
    return found
