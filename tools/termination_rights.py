"""Every way the contract may be ended, gathered from its own sentences (rule "every ground to
terminate").

"How can this agreement be terminated?" asks for a list the contract spreads over several
clauses: a right for convenience, a right for breach with its cure period, insolvency, a change of
control, non-renewal by notice, automatic termination on some event, and how notice is served.
An answer built from the one or two passages most similar to the question names some grounds and
reads as if it named them all (issue 70: "2 of about 5 grounds on a gas-gathering agreement").
So the question is planned from the text: in document order, the sentences that grant or limit a
right to terminate ("Either party may terminate", "Licensor reserves the right to terminate",
"may be terminated only", "shall terminate automatically") or give notice of termination or
non-renewal, each with who holds the right (:func:`termination_rights`). Sentences about what
happens once the contract has ended ("Upon termination, ...") answer another question ("What
happens at the end of the agreement?") and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Span
from tools.party_roles import Party, acts_of, contract_parties
from tools.question_kind import asks_what_follows_an_end
from tools.structure.sentences import sentences_within

#: Grounds shown at most: a bound on a long contract's list, not a cut of it. On the open-question
#: bank's tune half the five contracts asked have 2 to 6 grounds each (none is cut at 8).
GROUNDS = 8
#: Longest sentence taken as a ground (a longer "sentence" is a run the splitter could not cut).
GROUND_CHARS = 1500

_ENDING = re.compile(
    r"\b(?:terminat\w*|cancel\w*|end\s+(?:this|the|our|their)\s+(?:contract|agreement|deal)|"
    r"get\s+out\s+of|exit|walk\s+away)\b",
    re.IGNORECASE,
)
#: An open question (how, when, on what grounds), not a yes/no on one right ("Can the Buyer
#: terminate for convenience?" is a provision's decider's question).
_OPEN = re.compile(
    r"^\s*(?:how|when|what|which|under\s+what|in\s+what|on\s+what|list|summari[sz]e|describe|explain)\b|"
    r"\b(?:and|or)\s+(?:how|when)\b|\b(?:rights?|grounds?|circumstances|ways?|options?)\b",
    re.IGNORECASE,
)
_RIGHT = re.compile(
    r"\b(?:may|can|(?:is|are|be|shall\s+be|will\s+be)\s+entitled|reserves?\s+the\s+right|"
    r"(?:has|have|shall\s+have|will\s+have)\s+the\s+(?:right|option|power))"
    r"(?:[\s,]+[\w()-]+){0,8}?[\s,]+terminate\b",
    re.IGNORECASE,
)
_EVENT = re.compile(
    r"\b(?:may|can|shall|will)\s+(?:[\w-]+\s+){0,2}?be\s+terminated\b|"
    r"\b(?:shall|will)\s+(?:[\w-]+\s+){0,2}?terminate\b|\bterminates?\s+automatically\b|"
    r"\bautomatically\s+terminates?\b",
    re.IGNORECASE,
)
_NOTICE = re.compile(
    r"\b(?:notice|intention|intent|election)\s+(?:of\s+)?(?:(?:its|their|his|her|the|such)\s+)?"
    r"(?:intention\s+)?(?:to\s+terminate|termination|non-?renewal|not\s+to\s+renew)\b",
    re.IGNORECASE,
)
#: Rule "what follows the end is no ground": a sentence led by the end ("Upon termination of this
#: Agreement, Licensee shall cease ...") or ending something else on it ("... shall terminate upon
#: the termination of this Agreement") says what the end does, not how it comes.
_LED_BY_THE_END = re.compile(
    r"^\W*(?:[\w-]+\W+){0,4}?(?:upon|on|after|following|in\s+the\s+event\s+of|at)\s+(?:the\s+)?(?:any\s+)?"
    r"(?:expiration|expiry|termination|end)\b",
    re.IGNORECASE,
)
_ON_THE_END = re.compile(
    r"\bterminat\w*\s+(?:[\w,-]+\s+){0,3}?(?:upon|on|with)\s+(?:the\s+)?(?:expiration|expiry|termination)\b",
    re.IGNORECASE,
)
#: What ends when the contract does (rule "the contract itself ends"): a right to terminate "any
#: such sublicense", "a Purchase Order" or "the employment" is not a way to end the contract.
_THE_CONTRACT = re.compile(
    r"\b(?:agreements?|contracts?|term|licen[cs]es?|lease|arrangements?|relationship|relations|it)\b",
    re.IGNORECASE,
)
_DETERMINED = re.compile(
    r"[\s,]+(?:the|this|that|such|any|a|an|its|their|said|each|all)\s+((?:[\w-]+\s+){0,2}[\w-]+)",
    re.IGNORECASE,
)
#: Words before an event's modal that hold its subject ("This Agreement shall terminate").
SUBJECT_WORDS = 6
#: The right's holder when the contract ends by its own terms (an event, a notice of non-renewal).
BY_ITS_TERMS = ""


def asks_termination_rights(question: str) -> bool:
    """Whether ``question`` asks how or when the contract may be ended ("How can this agreement be
    terminated?", "What are the termination rights?", "Can either party end this contract early,
    and how?"), not what follows its end ("What are the consequences of termination?")."""
    ends = bool(_ENDING.search(question)) and bool(_OPEN.search(question))
    return ends and not asks_what_follows_an_end(question)


@dataclass(frozen=True)
class Ground:
    """A sentence of the contract on ending it, and who holds the right: a party's label,
    :data:`~tools.party_roles.EACH` for either party, :data:`BY_ITS_TERMS` for an event or notice."""

    holder: str
    span: Span


def is_a_ground(sentence: str) -> bool:
    """Whether ``sentence`` grants, limits or triggers the end of the contract, or gives notice
    of it, rather than saying what follows the end (rule "what follows the end is no ground")."""
    if _LED_BY_THE_END.search(sentence) or _ON_THE_END.search(sentence):
        return False
    if _NOTICE.search(sentence):
        return True
    return any(_ends_the_contract(sentence, m) for m in _RIGHT.finditer(sentence)) or any(
        _event_ends_the_contract(sentence, m) for m in _EVENT.finditer(sentence)
    )


def _ends_the_contract(sentence: str, right: re.Match[str]) -> bool:
    """Whether the right ``right`` matched ends the contract: the words it terminates name it
    ("terminate this Agreement"), or it names nothing ("may terminate on thirty days' notice")."""
    thing = _DETERMINED.match(sentence, right.end())
    return thing is None or bool(_THE_CONTRACT.search(thing.group(1)))


def _event_ends_the_contract(sentence: str, event: re.Match[str]) -> bool:
    """Whether the event ``event`` matched ends the contract: its subject, the few words before
    the modal, names it ("This Agreement shall terminate automatically", not "any such
    sublicense shall terminate")."""
    before = sentence[: event.start()].split()[-SUBJECT_WORDS:]
    return bool(_THE_CONTRACT.search(" ".join(before)))


def _holder(sentence: str, parties: Sequence[Party]) -> str:
    right = next((a.party for a in acts_of(sentence, parties) if a.role == "right"), None)
    return right if right is not None else BY_ITS_TERMS


def termination_rights(text: str, units: Sequence[Span] = (), limit: int = GROUNDS) -> list[Ground]:
    """The first ``limit`` sentences of ``text`` that are grounds to end it (:func:`is_a_ground`),
    in document order, each with its holder; sentences are read within ``units``, the clause
    tree's own texts, when given."""
    parties = contract_parties(text)
    grounds: list[Ground] = []
    for start, end in sentences_within(text, units):
        sentence = text[start:end]
        if end - start > GROUND_CHARS or not is_a_ground(sentence):
            continue
        grounds.append(Ground(_holder(sentence, parties), (start, end)))
        if len(grounds) == limit:
            break
    return grounds
