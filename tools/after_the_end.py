"""What follows the end of the contract, gathered from its own sentences (rule "what follows the
end").

"What happens at the end of the agreement?" and "What obligations survive termination?" ask for a
list the contract spreads over its clauses: the licence that ceases, the materials to return, the
sums still owed, the clauses that survive, the rights kept. Retrieval by similarity to the
question finds the article titled "Effect of Termination" and misses the same duties stated
inside other clauses ("to deliver to Client, upon termination or expiration of this Agreement, all
materials ..."): on the open-question bank's tune half its passages held 4 of 8 gold clauses of
this kind (``clausewise eval open-sections --half tune``). So the question is planned from the
text: in document order, the first :data:`SENTENCES` sentences that say what happens upon, after
or following the contract's termination or expiry, which obligations survive it, or what it does
not relieve a party of (:func:`follows_the_end`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clausewise.core.domain import Span
from tools.question_kind import asks_for_an_account, asks_what_follows_an_end
from tools.structure.sentences import sentences_within

#: Sentences shown at most: a bound on a long contract's list, not a cut of it.
SENTENCES = 8
#: Longest sentence taken (a longer "sentence" is a run the splitter could not cut).
SENTENCE_CHARS = 1500

#: The end named in a question ("termination", "expiry", "the end of the agreement").
_THE_END = re.compile(
    r"\b(?:terminat\w*|expir\w*|end\s+of\s+(?:this|the|our)\s+(?:agreement|contract|term|relationship)|"
    r"ends?|surviv\w*)\b",
    re.I,
)
#: The contract's end: "termination", "expiry", but not "the expiry of this (cure) period".
_END_NOUN = (
    r"(?:termination|expiration|expiry|cancellation)"
    r"(?!\s+of\s+(?!(?:this|the|such|said)\s+(?:agreement|contract|term|licen[cs]e|lease)\b))"
)
#: A sentence on what follows the end: "Upon (the) (early) termination ...", "... following such
#: expiration ...", "In the event of termination by Client ...", "... shall survive termination",
#: "Termination shall not relieve ...", "The termination ... shall be without prejudice to ...".
_AFTERMATH = re.compile(
    rf"\b(?:upon|on|after|following|in\s+the\s+event\s+of|as\s+of|from)\s+(?:the\s+|any\s+|such\s+|its\s+|"
    rf"early\s+|effective\s+date\s+of\s+(?:the\s+|such\s+)?)*{_END_NOUN}\b|"
    rf"\bsurviv\w*\b(?=.*\b(?:termination|expiration|expiry|terminat\w*|expir\w*)\b)|"
    rf"\b{_END_NOUN}\b.{{0,60}}?\b(?:shall|will|does|is)\s+(?:not\s+(?:relieve|affect|prejudice|release|impair|"
    rf"limit)|(?:be\s+)?without\s+prejudice)\b",
    re.I | re.S,
)


def asks_after_the_end(question: str) -> bool:
    """Whether ``question`` asks what follows the end of the contract ("What are the
    consequences of termination or expiry?", "What obligations survive the end of the
    agreement?", "What happens at the end of the agreement?")."""
    return (
        bool(_THE_END.search(question))
        and asks_what_follows_an_end(question)
        and asks_for_an_account(question)
    )


def follows_the_end(sentence: str) -> bool:
    """Whether ``sentence`` says what happens upon or after the contract's termination or
    expiry, what survives it, or what it leaves in place."""
    return bool(_AFTERMATH.search(sentence))


def after_the_end(text: str, units: Sequence[Span] = (), limit: int = SENTENCES) -> list[Span]:
    """The first ``limit`` sentences of ``text`` that say what follows its end
    (:func:`follows_the_end`), in document order; sentences are read within ``units``, the clause
    tree's own texts, when given."""
    found: list[Span] = []
    for start, end in sentences_within(text, units):
        if end - start <= SENTENCE_CHARS and follows_the_end(text[start:end]):
            found.append((start, end))
            if len(found) == limit:
                break
    return found
