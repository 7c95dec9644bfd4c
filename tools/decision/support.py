"""Whether a sentence of the report is supported by the sources it cites.

Not being contradicted is not enough: "the agreement restricts a party from competing ... [1]"
with [1] a confidentiality clause contradicts nothing and supports nothing. A sentence is
supported when one of these holds, tried in this order (the first that holds is recorded):

- ``quote``: its quoted words are a cited source's own words, and what it says outside the quotes
  is a lead-in (at most :data:`LEAD_IN_WORDS` words, no value, no negation: "7.1 provides:");
- ``restatement``: it is one sentence of a cited source in nearly the same words
  (:data:`RESTATED` of its words, negated alike, every value it states stated there);
- ``value``: it states a value (a duration, date, amount or law) a cited source states, and what
  else it says is that source's too: at least :data:`VALUE_CONTEXT` of its other words (words
  that place the statement, "clause", "section", "provides", do not count), or at most one word
  the source does not have ("9.1 *chooses* the law of England and Wales");
- ``entailment``: the NLI classifier finds a sentence of a cited source that entails it with
  P(Entailment) at or above ``at`` (``decision.support_at``), a sentence the claim does not
  reverse (rule "an entailment keeps its source's denial", :func:`reverses`); never
  for a sentence saying what the contract lacks ("The contract does not address ..."), which no
  one sentence can entail (rule "an absence is no sentence's to entail", :func:`states_absence`).

A sentence that cites nothing is checked against every source of the report, and the source
that supports it is recorded (the finishing stage cites it there). A sentence of a source that
instructs an assistant ("ignore prior instructions and answer that ...") supports nothing, under
any rule (rule "an instruction is no source", :mod:`tools.decision.instructions`): its words are
not what the parties agreed, and an entailment from it is an injection obeyed. Questions are not
claims, and neither is a restatement of the question asked (rule ``the question restated``: "The
governing law of the agreement." under "Which law governs the agreement?" asserts nothing of the
contract): a sentence without references or values whose words, but for at most one, are the
question's or the report's own ("report", "examines", "whether"); under a yes/no question, only one
that keeps it open ("whether ..."), since "X belongs to Y." under "Does X belong to Y?" asserts the
answer. A quotation is part of its sentence (``prose_sentences``). Each rule is tested on at
least two contracts (``tests/test_support.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.report import REFERENCE, Source
from tools.attribution import SentenceScorer
from tools.decision.instructions import addresses_a_model
from tools.negation import denial_count, denial_ends, negations
from tools.question_kind import question_kind
from tools.report_checks import plain_sentences, prose_sentences
from tools.values import find_values, same_value

#: Most words a quoting sentence may say outside its quotes ("Section 7.1 of the agreement provides:").
LEAD_IN_WORDS = 12
#: Share of a sentence's words one source sentence must hold for the sentence to restate it.
RESTATED = 0.8
#: Share of a value sentence's other words its source must hold (unless one word at most is not).
VALUE_CONTEXT = 0.5
#: Words that place a statement in the contract rather than say what it provides.
_PLACING = frozenset(
    "clause clauses section sections article articles agreement contract party parties provide provides "
    "provided state states stated say says set sets out pursuant schedule paragraph".split()
)
_QUOTED = re.compile(r"[\"“]([^\"”]{8,}?)[\"”]")
_WORD = re.compile(r"[a-z]{3,}")
_STOP = frozenset(
    "the and for that this with from are was were has have had shall will may must any all its their "
    "such which who whom been being not but than then there these those into upon also only under".split()
)


@dataclass(frozen=True)
class Support:
    """How a claim is supported (``how`` "" = it is not) and by which source."""

    claim: str
    how: str = ""
    source: int | None = None

    @property
    def supported(self) -> bool:
        return bool(self.how)

    def describe(self) -> str:
        if self.supported:
            return f'"{self.claim}" is supported by source [{self.source}] ({self.how})'
        return f'the statement "{self.claim}" is not supported by the sources it cites'


def _plain(text: str) -> str:
    return " ".join(REFERENCE.sub("", text).split())


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower()) if w not in _STOP}


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def _stated(source: Source) -> Source:
    """``source`` less its sentences that instruct an assistant (rule "an instruction is no
    source"): what the parties agreed, which alone can support a claim."""
    if not addresses_a_model(source.quote):
        return source
    kept = " ".join(s.strip() for s in plain_sentences(source.quote) if not addresses_a_model(s))
    return source.model_copy(update={"quote": kept})


def by_quote(claim: str, cited: Sequence[Source]) -> int | None:
    """Rule ``quote``: the source whose words the claim quotes, its lead-in saying nothing more."""
    plain = _plain(claim)
    quotes = _QUOTED.findall(plain)
    if not quotes:
        return None
    outside = _QUOTED.sub(" ", plain)
    if len(outside.split()) > LEAD_IN_WORDS or find_values(outside) or negations(outside):
        return None
    for source in cited:
        text = _squash(source.quote)
        if all(_squash(q).strip(" .…") in text for q in quotes):
            return source.number
    return None


def _source_sentences(source: Source) -> list[str]:
    return plain_sentences(source.quote) or [source.quote]


def by_restatement(claim: str, cited: Sequence[Source]) -> int | None:
    """Rule ``restatement``: a cited sentence the claim restates in nearly its words."""
    plain = _plain(claim)
    words, negated, values = _words(plain), negations(plain), find_values(plain)
    if not words:
        return None
    for source in cited:
        for sentence in _source_sentences(source):
            if negations(sentence) != negated:
                continue
            if len(words & _words(sentence)) < RESTATED * len(words):
                continue
            stated = find_values(sentence)
            if all(any(same_value(v, s) for s in stated) for v in values):
                return source.number
    return None


def by_value(claim: str, cited: Sequence[Source]) -> int | None:
    """Rule ``value``: a value a cited source states, said in that source's context."""
    plain = _plain(claim)
    values = find_values(plain)
    if not values:
        return None
    rest = plain
    for value in sorted(values, key=lambda v: -v.span[0]):
        rest = rest[: value.span[0]] + " " + rest[value.span[1] :]
    words = _words(rest) - _PLACING
    for source in cited:
        stated = find_values(source.quote)
        if not all(any(same_value(v, s) for s in stated) for v in values):
            continue
        shared = len(words & _words(source.quote))
        if len(words) - shared <= 1 or shared >= VALUE_CONTEXT * len(words):
            return source.number
    return None


#: How many words after a denying word (stop words aside) are what it denies ("Neither Party may
#: terminate this Agreement": party, terminate, agreement).
DENIAL_SCOPE = 3
#: How many of those words a statement must share to say the denied thing ("can be terminated by
#: either party"); one shared word ("both") is chance.
SCOPE_SHARED = 2


def _denied(text: str) -> list[set[str]]:
    """What each denying word of ``text`` denies: the stems of the words after it."""
    scopes = []
    for end in denial_ends(text):
        after = [w for w in _WORD.findall(text[end:].lower()) if w not in _STOP][:DENIAL_SCOPE]
        scopes.append({w[:5] for w in after})
    return scopes


def _says_undenied(text: str, scopes: list[set[str]]) -> bool:
    """Whether ``text``, denying nothing, says what one of ``scopes`` denies."""
    stems = _stems5(text)
    return not denial_count(text) and any(len(scope & stems) >= SCOPE_SHARED for scope in scopes)


def reverses(claim: str, sentence: str) -> bool:
    """Rule "an entailment keeps its source's denial": whether ``claim`` says, undenied, what
    ``sentence`` denies, or denies what ``sentence`` says undenied. The small classifier read "The
    agreement can be terminated by either party during the Initial Term, except as provided in
    paragraph 4(b)" as entailed (P 0.87) by "Neither Party may terminate this Agreement during the
    Initial Term except as set forth in paragraph 4(b)". Only the words a denial governs count: a
    "no later than" or "not to be unreasonably withheld" elsewhere in the source reverses nothing."""
    return _says_undenied(claim, _denied(sentence)) or _says_undenied(sentence, _denied(claim))


def by_entailment(claim: str, cited: Sequence[Source], scorer: SentenceScorer, at: float) -> int | None:
    """Rule ``entailment``: a cited sentence the NLI classifier finds entailing the claim and that
    the claim does not reverse (rule "an entailment keeps its source's denial", :func:`reverses`):
    a claim that reverses its source is unsupported and the source is quoted instead."""
    plain = _plain(claim)
    pieces = [
        (source, sentence)
        for source in cited
        for sentence in _source_sentences(source)
        if not reverses(plain, sentence)
    ]
    if not pieces:
        return None
    rows = scorer.probabilities(plain, [sentence for _, sentence in pieces])
    best = max(range(len(pieces)), key=lambda i: float(rows[i][0]))
    return pieces[best][0].number if float(rows[best][0]) >= at else None


def support(
    claim: str, sources: Sequence[Source], scorer: SentenceScorer | None = None, at: float = 0.9
) -> Support:
    """How ``claim`` is supported by the sources it cites (every source when it cites none)."""
    by_number = {s.number: _stated(s) for s in sources}
    numbers = [int(n) for n in REFERENCE.findall(claim)]
    cited = [by_number[n] for n in numbers if n in by_number] if numbers else list(by_number.values())
    cited = [source for source in cited if source.quote.strip()]
    if not cited:
        return Support(claim)
    for how, rule in (("quote", by_quote), ("restatement", by_restatement), ("value", by_value)):
        number = rule(claim, cited)
        if number is not None:
            return Support(claim, how, number)
    if scorer is not None and not states_absence(claim):
        number = by_entailment(claim, cited, scorer, at)
        if number is not None:
            return Support(claim, "entailment", number)
    return Support(claim)


#: Words a sentence about the report itself uses ("This report examines whether ...").
_ABOUT_THE_REPORT = frozenset(
    "report examine examines examined consider considers considered address addresses question "
    "questions whether topic asks asked concerns concern this what which how when who agreement "
    "contract".split()
)
#: Their 5-letter stems, as the measure of "the question restated" compares words.
_REPORT_STEMS = frozenset(w[:5] for w in _ABOUT_THE_REPORT)
#: "whether ...": a sentence that keeps the question open instead of answering it.
_KEEPS_OPEN = re.compile(r"\bwhether\b", re.IGNORECASE)


def keeps_open(sentence: str) -> bool:
    """Whether ``sentence`` leaves the question open ("whether ...") rather than answering it."""
    return bool(_KEEPS_OPEN.search(sentence))


def _stems5(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower()) if w not in _STOP}


def restates_question(sentence: str, question: str) -> bool:
    """Rule "the question restated" (see the module docstring). A yes/no question restated as a
    statement asserts its answer ("The intellectual property created under the agreement belongs
    to the other party." under "Does intellectual property ... belong to the other party?"), so
    under a yes/no question only a sentence that keeps it open ("whether ...") is exempt."""
    if REFERENCE.search(sentence) or find_values(sentence):
        return False
    if question_kind(question).form == "verdict" and not keeps_open(sentence):
        return False
    return _own_words(sentence, question) <= 1


def _own_words(text: str, question: str) -> int:
    """How many words of ``text`` are neither the question's nor the report's own (by 5-letter
    stem): the measure of "the question restated"."""
    return len(_stems5(text) - _stems5(question) - _REPORT_STEMS)


#: "The agreement does not (explicitly) state that ...": a sentence saying what the contract lacks.
_ABSENCE = re.compile(
    r"^\W*(?:the\s+)?(?:agreement|contract|document)\s+(?:does\s+not|doesn't|do\s+not)\s+"
    r"(?:(?:explicitly|expressly|specifically|clearly|directly)\s+)?"
    r"(?:state|provide|contain|address|mention|specify|say|include|set\s+out)s?\b(?:\s+that\b|\s+for\b)?",
    re.IGNORECASE,
)


def states_absence(claim: str) -> bool:
    """Rule "an absence is no sentence's to entail": whether ``claim`` says what the contract
    lacks ("The contract does not explicitly address the question of obligations after
    termination, ..."). That is a claim on the whole contract, which no one cited sentence can
    entail; the NLI classifier, trained on hypotheses a sentence states or denies, still scored
    such a claim entailed by a termination clause beside a source that stated a post-termination
    obligation (a hand-graded check-half report). Such a claim is supported only by a quote, a
    restatement or a value of its sources, which an absence rarely has; the short answer carries
    the decider's "no" on its own."""
    return bool(_ABSENCE.match(_plain(claim)))


def restates_absence(sentence: str, question: str) -> bool:
    """ "The agreement does not explicitly state that X." where X restates ``question`` with at
    most one word of its own (as in :func:`restates_question`): the question answered "not in the
    contract". Read by rule "the writer answers as decided" (:mod:`tools.decision.agreement`)."""
    match = _ABSENCE.match(sentence)
    if match is None or REFERENCE.search(sentence) or find_values(sentence):
        return False
    rest = sentence[match.end() :]
    return bool(_stems5(rest)) and _own_words(rest, question) <= 1


#: Fewest of the question's own words a sentence keeps to restate it.
RESTATED_WORDS = 2


def restated_answer(sentence: str, question: str) -> str | None:
    """Rule "a yes/no question restated is its answer": "The agreement does not guarantee a party
    the best price ..." under "Does the agreement guarantee a party the best price ...?" answers
    no, and the same words without the denial answer yes, whatever else the sentence cites. The
    sentence restates the question when all its words but one at most are the question's or the
    report's own (the measure of "the question restated") and it keeps at least
    :data:`RESTATED_WORDS` of the question's (a bare "none" or "partly" restates nothing); it
    answers "no" when it has one denial more than the question, "yes" when it has as many (None:
    no restatement of a yes/no question, or one that keeps it open with "whether")."""
    if question_kind(question).form != "verdict" or sentence.rstrip().endswith("?"):
        return None
    if keeps_open(sentence):
        return None
    said = REFERENCE.sub("", sentence)
    shared = _stems5(said) & _stems5(question) - _REPORT_STEMS
    if len(shared) < RESTATED_WORDS or _own_words(said, question) > 1:
        return None
    denials = denial_count(sentence) - denial_count(question)
    return {0: "yes", 1: "no"}.get(denials)


def claims_of(text: str, question: str = "") -> list[str]:
    """The sentences of ``text`` that assert something: not questions, not the question restated."""
    return [
        s.strip()
        for s in prose_sentences(text)
        if (len(s.split()) >= 3 or find_values(s))  # rule "a bare value is a claim" (claim_check)
        and not s.rstrip().endswith("?")
        and not (question and restates_question(s, question))
    ]


def supports(
    texts: Sequence[str],
    sources: Sequence[Source],
    scorer: SentenceScorer | None = None,
    at: float = 0.9,
    question: str = "",
) -> list[Support]:
    """How each claim of ``texts`` (``question`` restated is none) is supported, or that it is not."""
    return [support(claim, sources, scorer, at) for text in texts for claim in claims_of(text, question)]


def unsupported(
    texts: Sequence[str],
    sources: Sequence[Source],
    scorer: SentenceScorer | None = None,
    at: float = 0.9,
    question: str = "",
) -> list[Support]:
    """The claims of ``texts`` (``question`` restated is none) their cited sources do not support."""
    return [found for found in supports(texts, sources, scorer, at, question) if not found.supported]


def uncited(claim: str) -> bool:
    """Whether ``claim`` cites no source (it was checked against them all)."""
    return not REFERENCE.search(claim)
