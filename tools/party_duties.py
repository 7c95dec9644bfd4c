"""Each party's duties, gathered from the contract's own sentences (rule "each party's duties").

"What are each party's main obligations?" has no one clause to find: its answer is spread over
the contract, in the sentences where a party shall, must or agrees to do something. Retrieval by
similarity to the question finds few of them (on the open-question bank's tune half the passages
held 3 of 17 gold clauses of this kind, against 85 of 123 over every kind:
``clausewise eval open-sections --half tune``); a contract's operative duties come early and by
party. So the question is planned from the text: per party, in document order, the first
:data:`DUTIES_PER_PARTY` sentences of which that party alone is the subject of a duty
(:func:`tools.party_roles.duty_bearers`); sentences binding "each party" alike are the mutual
boilerplate (confidentiality, notices) other questions ask about, and the recitals are background.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Span
from tools.party_roles import EACH, contract_parties, duty_bearers
from tools.structure.sentences import sentences_within

#: Duties shown per party. On the open-question bank's tune half (five obligations questions) the
#: first 3 per party held 10 of 17 gold clauses, against 3 for retrieval's passages; 1: 7, 2: 9,
#: 4: 10, 6: 11, 8: 12 (three times the sentences for two more): 3 is where the count stops rising.
#: With a party's main duties first (:func:`is_a_main_duty`): 3 hold 11 (2: 9, 4 to 6: 11, 8: 12).
DUTIES_PER_PARTY = 3
#: Longest sentence taken as a duty (a longer "sentence" is a run of text the splitter could not cut).
DUTY_CHARS = 1200

_DUTIES = re.compile(
    r"\b(?:obligations?|duties|duty|responsibilit(?:y|ies)|undertakings?|covenants?|"
    r"(?:have|has|need|needs|required)\s+to\s+do|must\s+do|supposed\s+to\s+do)\b",
    re.IGNORECASE,
)
#: The performance a contract is for, as a party's duty: to supply, deliver, buy, pay, market,
#: perform or develop, or to use its efforts to, read at the sentence's first "shall", "will",
#: "must" or "agrees to" (a "shall not" is a restraint, not the performance; "will be performed"
#: states a standard, as a warranty does; a later "and shall provide" is a duty's detail).
_MODAL = re.compile(r"\b(?:shall|will|must|agrees?\s+to|covenants?\s+to|undertakes?\s+to)\s+", re.IGNORECASE)
_PERFORMANCE = re.compile(
    r"(?:(?!be\b|been\b|not\b)[\w,()'’-]+\s+){0,4}?"
    r"(?:provide|deliver|supply|sell|purchase|buy|order|pay|market|promote|distribute|manufacture|"
    r"produce|perform|develop|design|render|furnish|ship|carry\s+out|give\s+its\s+best|"
    r"use\s+(?:its\s+|all\s+)?(?:commercially\s+|reasonable\s+)*(?:reasonable|best|diligent)\s+"
    r"(?:efforts|endeavou?rs))\w*\b",
    re.IGNORECASE,
)
#: Rule "recitals are no duties": the background a contract opens with ("WHEREAS, DSS is engaged
#: in ...", "RECITALS a. The Manufacturer wishes to appoint ...") states what the parties want,
#: not what they must do; its verbs ("to appoint") read as duties (two of five tune-half reports
#: opened with a recital).
_RECITAL = re.compile(r"\b(?:whereas|recitals?)\b", re.IGNORECASE)
_EVERY_PARTY = re.compile(
    r"\b(?:each|both|either|every|the)\s+(?:party|parties|side|sides)\b|\bparties['’]|\bparty['’]s\b",
    re.IGNORECASE,
)


def asks_each_partys_duties(question: str) -> bool:
    """Whether ``question`` asks what the parties must do ("What are each party's main
    obligations?", "What does each side have to do?", "Summarise the key duties of each party.")."""
    return bool(_DUTIES.search(question)) and bool(_EVERY_PARTY.search(question))


@dataclass(frozen=True)
class Duty:
    """A sentence of the contract that puts a duty on one party (its label, as clauses call it)."""

    party: str
    span: Span


def is_a_main_duty(sentence: str) -> bool:
    """Rule "a party's main duties come first": whether ``sentence`` binds its party to the
    performance the contract is for (:data:`_PERFORMANCE`), not to a duty every contract carries
    (complying with law, keeping out of the other's rights, notifying)."""
    modal = _MODAL.search(sentence)
    return modal is not None and _PERFORMANCE.match(sentence, modal.end()) is not None


def party_duties(text: str, units: Sequence[Span] = (), per_party: int = DUTIES_PER_PARTY) -> list[Duty]:
    """Up to ``per_party`` duties of each party the contract names, grouped by party in the order
    the parties are named and in the contract's order within a party: its main duties first
    (:func:`is_a_main_duty`), then its other duties, each set from the start of the contract.
    Empty when the contract names fewer than two parties. Sentences are read within ``units``,
    the clause tree's own texts, when given (:func:`sentences_within`)."""
    parties = contract_parties(text)
    if len(parties) < 2:
        return []
    found: dict[str, list[Span]] = {party.label: [] for party in parties}
    for start, end in sentences_within(text, units):
        if end - start > DUTY_CHARS or _RECITAL.search(text, start, end):
            continue
        bearers = duty_bearers(text[start:end], parties)
        if len(bearers) == 1 and bearers[0] != EACH:
            found[bearers[0]].append((start, end))
    chosen = {
        party: sorted(sorted(spans, key=lambda s: not is_a_main_duty(text[s[0] : s[1]]))[:per_party])
        for party, spans in found.items()
    }
    return [Duty(party, span) for party, spans in chosen.items() for span in spans]
