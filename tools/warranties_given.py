"""Every warranty the contract gives, gathered from its own sentences (rule "every warranty
given").

"What warranties are given?" asks for a list: each party's representations and warranties, how
long they last, and what is disclaimed. Retrieval by similarity to the question finds the
passages that talk most about warranties, which are often the disclaimer and the warranty's
remedy, and misses the warranties themselves (issue 70: a held-out report answered with the
disclaimer of non-IBM materials while 5.1 "IBM represents and warrants that" was not found; on the
open-question bank's tune half the passages held 5 of 10 gold clauses of this kind:
``clausewise eval open-sections --half tune``). So the question is planned from the text, in three
parts, each in document order:

- per party, the first :data:`WARRANTIES_PER_PARTY` sentences in which that party (or "each
  party") represents, warrants or guarantees something as their subject
  (:func:`tools.party_roles.warrantors`);
- up to :data:`TERMS` sentences on a warranty's period or remedy given by no party as subject
  ("The warranty period is twelve (12) months from delivery");
- up to :data:`DISCLAIMERS` sentences that disclaim or exclude warranties ("MAKES NO OTHER
  WARRANTIES", "in lieu of all other warranties", "as is").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Span
from tools.party_roles import EACH, contract_parties, warrantors
from tools.question_kind import asks_for_an_account
from tools.structure.sentences import sentences_within

#: Warranties shown per party. On the open-question bank's tune half a party's warranties sit in
#: one article of a few subclauses; the first three reach it (a bound on a long list of
#: representations, not a cut of the part).
WARRANTIES_PER_PARTY = 3
#: Sentences on a warranty's period or remedy given by no party as subject, and disclaimers.
TERMS = 2
DISCLAIMERS = 2
#: Longest sentence taken (a longer "sentence" is a run the splitter could not cut).
WARRANTY_CHARS = 1500

_ASKS = re.compile(r"\b(?:warrant\w*|represent(?:ation)?s|guarant(?:ee|ees|ies|y)|disclaim\w*)\b", re.I)
_WARRANTY = re.compile(r"\b(?:warrant(?:y|ies|ed|s)?|representations?|guarantees?)\b", re.I)
#: A warranty excluded: "makes no (other) representations or warranties", "disclaims", "in lieu
#: of all other warranties", "as is", "without warranty", "neither party makes any other
#: representations".
_DISCLAIMS = re.compile(
    r"\b(?:no\s+(?:other\s+|further\s+|additional\s+)?(?:express\s+or\s+implied\s+)?"
    r"(?:representations?|warrant(?:y|ies)|guarantees?)|disclaim\w*|in\s+lieu\s+of|"
    r"as[\s\"'“”]+is\b|without\s+(?:any\s+)?warrant(?:y|ies)|"
    r"\bneither\s+party\s+makes\s+any\s+(?:other\s+)?(?:representations?|warrant(?:y|ies)))",
    re.I,
)
#: A warranty's period or remedy: a duration ("ninety (90) days") or what the warrantor does on a
#: breach (repair, replace, refund).
_TERM = re.compile(
    r"\b(?:\d+|one|two|three|six|twelve|eighteen|twenty[\w-]*|thirty|sixty|ninety)\)?\s+"
    r"(?:calendar\s+|business\s+)?(?:days?|months?|years?)\b|\b(?:repair|replace|refund|re-?perform)\w*\b",
    re.I,
)


def asks_warranties(question: str) -> bool:
    """Whether ``question`` asks what the contract warrants ("What warranties are given?", "What
    representations and warranties does each party make?"), not yes or no on one warranty
    ("Does the Supplier warrant the Products?" is a provision's decider's)."""
    return bool(_ASKS.search(question)) and asks_for_an_account(question)


@dataclass(frozen=True)
class Warranty:
    """A sentence of the contract on warranties, and its part: a party's label (or
    :data:`~tools.party_roles.EACH`) for a warranty that party gives, ``"term"`` for a warranty's
    period or remedy, ``"disclaimer"`` for a warranty excluded."""

    part: str
    span: Span


def warranties_given(text: str, units: Sequence[Span] = ()) -> list[Warranty]:
    """The contract's warranties (:mod:`tools.warranties_given`): each party's first
    :data:`WARRANTIES_PER_PARTY`, in the order the parties are named and "each party" last, then
    the terms and the disclaimers; sentences are read within ``units``, the clause tree's own
    texts, when given."""
    parties = contract_parties(text)
    given: dict[str, list[Span]] = {party.label: [] for party in parties}
    given[EACH] = []
    terms: list[Span] = []
    disclaimers: list[Span] = []
    for start, end in sentences_within(text, units):
        sentence = text[start:end]
        if end - start > WARRANTY_CHARS:
            continue
        givers = warrantors(sentence, parties)
        about = bool(_WARRANTY.search(sentence))
        if about and _DISCLAIMS.search(sentence):
            if len(disclaimers) < DISCLAIMERS:
                disclaimers.append((start, end))
        elif givers:
            if len(given[givers[0]]) < WARRANTIES_PER_PARTY:
                given[givers[0]].append((start, end))
        elif about and _TERM.search(sentence) and len(terms) < TERMS:
            terms.append((start, end))
    found = [Warranty(part, span) for part, spans in given.items() for span in spans]
    found += [Warranty("term", span) for span in terms]
    return found + [Warranty("disclaimer", span) for span in disclaimers]
