"""The qualifiers of a contract sentence, and whether a restatement of it keeps them.

Rule "a restatement keeps its qualifiers": a sentence restating a clause must carry the words of
every condition and scope the clause puts on what it says, and may not add a condition of its
own. A small writer keeps a clause's parties, verbs and values and loses what bounds them:
"On any termination of this Agreement under Section 5.1 (a), (b), or (c) all outstanding stock
options ... shall be exercisable" restated "Upon the termination of this Agreement, all
outstanding stock options ..."; "the entire liability ... of Tripath ..., with respect to any
actual or alleged intellectual property infringement by the Products" restated without the
infringement; "Upon termination of this Agreement" restated "Upon termination or expiry". Each
keeps nearly every word of its source, so word overlap and the sentence classifier read it as a
restatement; each says something the clause does not. What fails is quoted instead.

A qualifier is a lead-in ("On ...", "Upon ...", "If ...", "In the event ...", up to its comma)
or a phrase a scope word opens anywhere in the sentence ("with respect to ...", "under Section
...", "only if ...", "to the extent ...", "provided that ...", up to the next comma, semicolon
or the end). Its words are its content words: a restatement may drop articles and drafting
words ("this Agreement", "hereunder"), never what the condition is about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What opens a sentence's condition (after its number, if any): the act or event it depends on
#: runs to the comma before the sentence's main clause.
_LEAD_IN = re.compile(
    r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s+|\d+(?:\.\d+)+\.?\s+)?(?=(?:on|upon|if|in\s+the\s+event|in\s+case|where|"
    r"when|whenever|following|after|prior\s+to|before|unless|except|subject\s+to|during|to\s+the\s+extent)\b)",
    re.IGNORECASE,
)
#: The modal of a main clause ("..., the other party may terminate"): a lead-in ends at the last
#: comma before it, so that its own list ("required by law, regulation or order of a court") is
#: kept whole.
_MAIN_MODAL = re.compile(r"\b(?:shall|will|may|must|can|agrees?|hereby)\b", re.IGNORECASE)
_BREAK = re.compile(r"[,;:]")
#: Longest lead-in read, in characters.
LEAD_IN_CHARS = 300
#: A parenthesis that explains rather than conditions ("(as defined below)"); a list marker or a
#: number in words' figures ("(a)", "(10)") is kept.
_ASIDE = re.compile(r"\((?![a-z0-9]{1,4}\))[^()]*\)", re.IGNORECASE)
#: What opens a scope or condition inside a sentence.
_SCOPE = re.compile(
    r"\b(?P<q>(?:with\s+respect\s+to|in\s+respect\s+of|under\s+(?:section|clause|article|paragraph)s?|"
    r"only\s+(?:if|by|upon|on|after|when|where|to\s+the\s+extent)|solely\s+(?:for|to|in)|"
    r"to\s+the\s+extent|provided\s+(?:that|however)|subject\s+to|unless|except\s+(?:as|for|that|where|to)|"
    r"other\s+than|in\s+the\s+event\s+(?:of|that))\b(?:[^,;:(]|\((?=[a-z0-9]{1,4}\))){3,240}?)"
    r"(?=[,;:]|\((?![a-z0-9]{1,4}\))|\.(?:\s|$)|$)",
    re.IGNORECASE,
)
#: A clause number a span ran on into ("... unless Company otherwise indicates in writing 3.02"):
#: the next clause's heading, no word of the qualifier (a number after "Section" is one).
_NEXT_NUMBER = re.compile(
    r"(?<!section)(?<!clause)(?<!article)(?<!paragraph)\s+\d+(?:\.\d+)*\.?\s*$", re.IGNORECASE
)
#: Words a restatement may leave out of a qualifier without changing it.
_DRAFTING = frozenset(
    "the this that these those such any all each a an of to in on upon for by with and or its their "
    "agreement contract hereunder hereto herein hereof thereof thereunder party parties shall will may "
    "be is are been has have other respect extent event case provided however only solely under "
    "subject unless except if when where whenever following after prior before during "
    "notwithstanding than as foregoing provision provisions otherwise it they them".split()
)
_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)*[a-z]?|\([a-z0-9]{1,4}\)", re.IGNORECASE)


def _stem(word: str) -> str:
    """A word without its plural or third person's ending ("breaches" and "breach" alike)."""
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """The words of ``text`` that say what it is about, lowercased and stemmed (numbers and list
    markers such as "5.1" and "(a)" count)."""
    words = {t.lower() for t in _TOKEN.findall(text)}
    return {_stem(w) for w in words if w not in _DRAFTING and len(w) > 1}


#: Share of a qualifier's own words a restatement must carry to keep it: at least half, so that
#: a condition put another way ("ended on thirty days' notice" for "terminated earlier by either
#: Party on thirty (30) days' written notice") keeps it, and one left out or cut to a word of it
#: ("Upon the termination" for "On any termination ... under Section 5.1 (a), (b), or (c)") does not.
KEPT = 0.5


@dataclass(frozen=True)
class Qualifier:
    """A condition or scope of a sentence: its words as written, and its content words."""

    text: str
    words: frozenset[str]


def _lead_in(sentence: str) -> tuple[int, int] | None:
    """Where the lead-in condition of ``sentence`` lies, if it opens with one: to the last break
    (comma, semicolon, colon) before its main clause's modal, else to its first break."""
    opening = _LEAD_IN.match(sentence)
    if opening is None:
        return None
    start = opening.end()
    modal = _MAIN_MODAL.search(sentence, start)
    breaks = [m.start() for m in _BREAK.finditer(sentence, start, modal.start() if modal else len(sentence))]
    if not breaks:
        first = _BREAK.search(sentence, start)
        breaks = [first.start()] if first else []
    if not breaks or breaks[-1] - start > LEAD_IN_CHARS:
        return None
    return start, breaks[-1]


def qualifiers_of(sentence: str) -> list[Qualifier]:
    """The lead-in condition and the scope phrases of ``sentence``, each with its own words: its
    content words that the rest of the sentence does not hold (restating the rest carries those),
    and only those that have any."""
    lead = _lead_in(sentence)
    spans = [lead] if lead else []
    spans += [m.span("q") for m in _SCOPE.finditer(sentence, lead[1] if lead else 0)]
    qualifiers = []
    for start, end in spans:
        text = _NEXT_NUMBER.sub("", sentence[start:end])
        own = content_words(_ASIDE.sub(" ", text)) - content_words(sentence[:start] + " " + sentence[end:])
        if own:
            qualifiers.append(Qualifier(" ".join(text.split()), frozenset(own)))
    return qualifiers


def dropped_qualifier(claim: str, source: str) -> Qualifier | None:
    """The first qualifier of ``source`` of whose own words ``claim`` carries less than :data:`KEPT`."""
    said = content_words(claim)
    return next((q for q in qualifiers_of(source) if len(q.words & said) < KEPT * len(q.words)), None)


def added_condition(claim: str, source: str) -> str | None:
    """The lead-in condition of ``claim`` with a content word ``source`` does not have anywhere
    ("Upon termination or expiry" restating a clause that speaks of termination alone)."""
    lead = _lead_in(claim)
    if lead is None:
        return None
    text = claim[lead[0] : lead[1]]
    return " ".join(text.split()) if content_words(text) - content_words(source) else None
