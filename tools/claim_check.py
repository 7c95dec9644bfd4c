"""Claims checked against the sources they cite: a sentence of the report that its own sources
contradict must not reach the user.

A claim is one sentence of the summary, the findings or the preliminary answer; its sources are
the ones it cites ([n]), or every source of the report when it cites none. The checks:

- values (always): a duration, date, amount or governing law the claim states must be one its
  sources state when they state any of that type. "must keep it confidential for two years [3]"
  against a source stating "survive ... for three (3) years" is contradicted; against a source
  stating no duration it is merely unsupported, which this check does not judge. Values that the
  question itself names are not counted (a summary restating "does it last five years?" claims
  nothing).
- exceptions (always): a value its source gives to a rule is not the value of what that rule
  excepts. "Trade secrets continue for three (3) years" against "survive ... for three (3) years;
  however, obligations relating to trade secrets continue for so long as ..." states the source's
  value, so the value check passes it, and the classifier reads it as neutral; but it moves the
  value onto the exception's subject. One clause of a claim holding both the rule's value and
  every distinctive word of the exception's subject is contradicted.
- joined values (always): a claim that makes a value of one source depend on a value only another
  source states ("confidential for three (3) years, unless terminated earlier on thirty (30)
  days' notice", where 6.2 gives the three-year survival and 6.1 the thirty days' notice of early
  termination) ties together two provisions that no source ties together. Each value passes the
  value check, and the classifier, reading one sentence at a time, cannot see the join.
- dropped conditions (always; rule "a dropped condition", :mod:`tools.qualifiers`): a claim
  that does without a condition its source imposes. "Either party may terminate without notice
  [1]" against "... only by giving ninety (90) days' prior written notice" keeps every value and
  nearly every word of its source, and the classifier reads it as a restatement.
- a number given a unit (always; rule "a number read as a duration"): a claim's duration whose
  number its sources give bare, with no unit of time, where they state no duration at all. "The
  payment period is 3 months [1]" from a redacted schedule's row "Payment Period 3 $ ***" reads a
  row label as a term; the value check, finding no duration in the source, left it to the
  classifier, which passed it.
- swapped parties (always, when the contract's parties are given; rule "a party swapped",
  :func:`tools.party_roles.acts_of`): a claim that gives a party a duty or a right its sources
  give only to another party. "The Supplier may terminate for convenience [1]" against "The
  Customer may terminate this Agreement for convenience" shares every word but one; "The
  Supplier grants the Developer a licence" against "DSS hereby grants to Developer" names a
  party the contract does not call so (a role word the writer supplied).
- a party named anywhere (always, given the parties; rule "a party the contract does not have",
  :func:`_invented_party`): a role word no party is called by and no cited source uses, also where
  no act has it as its subject ("The intellectual property rights are owned by the Supplier").
- the party acted on (always, given the parties; rule "a party swapped", :func:`_object_contradiction`):
  a restatement whose verb falls on one party where its source's falls on another ("by giving the
  Company notice" restating "by the Company electing to give the Consultant ... notice").
- qualifiers (always; rule "a restatement keeps its qualifiers", :mod:`tools.kept_qualifiers`): a
  restatement of one source sentence that leaves out its lead-in condition or a scope ("On any
  termination ... under Section 5.1 (a), (b), or (c)" restated "Upon the termination"), or adds a
  condition it does not state ("Upon termination or expiry" for "Upon termination").
- the hypothesis classifier (``interrogation.claim_check = "values+nli"``): the claim read as a
  hypothesis against each sentence of its sources; contradiction at or above the calibrated
  threshold, with no sentence entailing it, is a contradiction. Trained on ContractNLI, it knows
  NDA obligations (disclosure, return of information, solicitation...), not numbers: the two
  checks complement each other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clausewise.core.report import REFERENCE, Source
from tools.attribution import SentenceScorer
from tools.kept_qualifiers import added_condition, content_words, dropped_qualifier
from tools.negation import negated_alike
from tools.party_roles import EACH, ROLE_WORDS, Party, acts_of, side_of
from tools.qualifiers import contradicted_conditions, names
from tools.report_checks import prose_sentences
from tools.value_reading import RULE_TURNS
from tools.values import ValueMention, find_values, same_value

#: Where a sentence turns from its rule to what the rule excepts ("...; however, obligations
#: relating to trade secrets continue ...", ", provided that the Recipient may ...").
_EXCEPTION = re.compile(rf"[;,]\s*(?:{RULE_TURNS})\b[\s,]*", re.I)
#: The verb that ends an exception's subject ("obligations relating to trade secrets | continue").
_VERB = re.compile(
    r"\b(?:shall|will|must|may|is|are|continues?|survives?|remains?|lasts?|applies|apply|expires?)\b",
    re.I,
)
#: Where a claim turns from one clause to the next: a claim may state the rule and its exception
#: side by side ("last three years, but trade secrets as long as they remain secret").
_CLAUSE = re.compile(r"[,;:]|\b(?:but|while|whereas|except|however|although|unless)\b", re.I)
_WORD = re.compile(r"[a-z]{4,}")
#: Words of an exception's subject that name no subject of their own.
_LINKING = frozenset(
    {"relating", "related", "respect", "regard", "that", "which", "those", "such", "this", "with"}
)
#: Most words an exception's subject may have before its verb (longer is no subject phrase).
SUBJECT_WORDS = 10
#: Where a claim makes what it states depend on a condition ("..., unless terminated earlier on").
_CONDITION = re.compile(r"\b(?:unless|except|provided|subject to|until|save)\b", re.I)
#: Share of a claim's words one sentence of its sources must hold for the claim to restate it.
RESTATED = 0.8
#: The lead-in of a finding that only quotes its source ('1.1, p. 1 provides: "..." [8]').
_LEAD_IN = re.compile(r'^[^"“]{0,120}?\bprovides:\s*')


@dataclass(frozen=True)
class Contradiction:
    """A claim and the source that contradicts it, with what the source says instead."""

    claim: str
    source: int
    reason: str

    def describe(self) -> str:
        return f'the statement "{self.claim}" is contradicted by source [{self.source}]: {self.reason}'


def claims(text: str) -> list[str]:
    """The sentences of ``text`` (a claim each): three words or more, or a value of any length
    (rule "a bare value is a claim": a writer's preliminary answer "45 days", under a short
    answer of "unclear" and beside a source stating twenty-four months, was too short to be read
    and was shown)."""
    return [s.strip() for s in prose_sentences(text) if len(s.split()) >= 3 or find_values(s)]


def _plain(claim: str) -> str:
    return " ".join(REFERENCE.sub("", claim).split())


def _only_quotes(claim: str, cited: Sequence[Source]) -> bool:
    """Whether ``claim`` asserts nothing but its sources' own words (a quoting finding, or a piece
    of one): such a claim cannot contradict them, whatever a classifier reads into a long
    hypothesis that is its own premise."""
    plain = _plain(claim)
    core = _LEAD_IN.sub("", plain).strip().removesuffix("...").strip().strip('"').strip()
    if not core or (core == plain and len(core.split()) < 3):
        return False  # a lead-in quoting a clause's number alone ('1.1 provides: "1.1.') passes
    return any(core in " ".join(source.quote.split()) for source in cited)


def _value_contradiction(
    claim: str, cited: Sequence[Source], asked: list[ValueMention]
) -> Contradiction | None:
    stated = [v for v in find_values(_plain(claim)) if not any(same_value(v, q) for q in asked)]
    for value in stated:
        sourced = [(s, m) for s in cited for m in find_values(s.quote, (value.type,))]
        if sourced and not any(same_value(value, m) for _, m in sourced):
            source, mention = sourced[0]
            return Contradiction(
                claim, source.number, f'it says {value.text} where the source says "{mention.text}"'
            )
    return None


def _stating(value: ValueMention, cited: Sequence[Source]) -> list[int]:
    """The numbers of the sources that state ``value``."""
    return [s.number for s in cited if any(same_value(value, m) for m in find_values(s.quote, (value.type,)))]


def _joined_contradiction(
    claim: str, cited: Sequence[Source], asked: list[ValueMention]
) -> Contradiction | None:
    plain = _plain(claim)
    turn = _CONDITION.search(plain)
    if turn is None:
        return None
    fresh = [v for v in find_values(plain) if not any(same_value(v, q) for q in asked)]
    ruled = [v for v in fresh if v.span[1] <= turn.start()]
    conditions = [v for v in fresh if v.span[0] >= turn.end()]
    for value in ruled:
        for condition in conditions:
            rule_sources, condition_sources = _stating(value, cited), _stating(condition, cited)
            if rule_sources and condition_sources and not set(rule_sources) & set(condition_sources):
                reason = (
                    f"it makes {value.text} depend on {condition.text}, which only source "
                    f"[{condition_sources[0]}] states; no source ties them together"
                )
                return Contradiction(claim, rule_sources[0], reason)
    return None


def _stems(text: str) -> set[str]:
    return {word.rstrip("s") for word in _WORD.findall(text.lower())}


@dataclass(frozen=True)
class _Exception:
    """A source sentence's rule and what it excepts: the rule's values, the distinctive words of
    the exception's subject, and the exception's own words."""

    values: list[ValueMention]
    subject: set[str]
    words: str


def _exception_in(sentence: str) -> _Exception | None:
    turn = _EXCEPTION.search(sentence)
    if turn is None:
        return None
    rule, exception = sentence[: turn.start()], sentence[turn.end() :]
    verb = _VERB.search(exception)
    if verb is None or len(exception[: verb.start()].split()) > SUBJECT_WORDS:
        return None
    subject = _stems(exception[: verb.start()]) - _stems(rule) - _LINKING
    own = find_values(exception)
    values = [v for v in find_values(rule) if not any(same_value(v, e) for e in own)]
    if not subject or not values:
        return None
    return _Exception(values, subject, " ".join(exception.split()).rstrip("."))


def _exception_contradiction(claim: str, cited: Sequence[Source]) -> Contradiction | None:
    clauses = [c for c in _CLAUSE.split(_plain(claim)) if c and c.strip()]
    for source in cited:
        for sentence in claims(source.quote):
            excepted = _exception_in(sentence)
            if excepted is None:
                continue
            for clause in clauses:
                stated = [v for v in find_values(clause) if any(same_value(v, r) for r in excepted.values)]
                if stated and excepted.subject <= _stems(clause):
                    reason = f'it gives {stated[0].text} to what the source excepts: "{excepted.words}"'
                    return Contradiction(claim, source.number, reason)
    return None


def _condition_contradiction(claim: str, cited: Sequence[Source]) -> Contradiction | None:
    plain = _plain(claim)
    for source in cited:
        dropped = contradicted_conditions(plain, source.quote)
        if dropped:
            condition = dropped[0]
            naming = [s for s in claims(source.quote) if names(s, condition)]
            where = " ".join((naming or [source.quote])[0].split())[:200]
            reason = f'it does without {condition}, which the source requires: "{where}"'
            return Contradiction(claim, source.number, reason)
    return None


#: Letters of a verb compared (its stem): "terminate" and "terminates", "pay" and "pays".
_VERB_STEM = 5


def _readers(parties: Sequence[Party]) -> list[Party]:
    """The contract's parties, and a role word for each role the contract's parties are not
    called by ("the Supplier" where the contract says "DSS"): a claim naming a party so has it
    do what its source has a named party do."""
    labels = {p.label.lower() for p in parties}
    return [
        *parties,
        *(Party(w.title(), w.title(), side_of(w)) for w in sorted(ROLE_WORDS) if w not in labels),
    ]


def _mentions_party(text: str, party: str) -> bool:
    return re.search(rf"\b{re.escape(party)}\b", text, re.IGNORECASE) is not None


def _party_contradiction(
    claim: str, cited: Sequence[Source], parties: Sequence[Party]
) -> Contradiction | None:
    if len(parties) < 2:
        return None
    labels = {p.label for p in parties}
    parties = _readers(parties)
    for act in acts_of(_plain(claim), parties):
        if act.party == EACH:
            continue
        if act.party not in labels and not any(_mentions_party(source.quote, act.party) for source in cited):
            # rule "a party the contract does not have": "The Supplier may terminate" restating a
            # trademark licence between a Licensor and a Licensee, whose source names no Supplier
            reason = f"it names {act.party}, whom neither the contract's parties nor its source name"
            return Contradiction(claim, cited[0].number if cited else 0, reason)
        same = [
            (source, sentence, other)
            for source in cited
            for sentence in claims(source.quote)
            for other in acts_of(sentence, parties)
            if other.role == act.role and other.verb[:_VERB_STEM] == act.verb[:_VERB_STEM]
        ]
        if same and not any(other.party in (act.party, EACH) for _, _, other in same):
            source, sentence, other = same[0]
            where = " ".join(sentence.split())[:200]
            reason = f'it gives {act.party} what the source gives {other.party}: "{where}"'
            return Contradiction(claim, source.number, reason)
    return None


#: A role word written as a party's name ("the Supplier"), which rule "a party the contract does
#: not have" reads wherever it stands, acting or acted on ("owned by the Supplier").
_ROLE_NAME = re.compile(rf"\b(?:{'|'.join(sorted(w.title() for w in ROLE_WORDS))})\b")


def _invented_party(claim: str, cited: Sequence[Source], parties: Sequence[Party]) -> Contradiction | None:
    """Rule "a party the contract does not have", wherever the claim names it: the writer gave a
    services agreement between Kubient and a Customer the sentence "The intellectual property
    rights are owned by the Supplier"; no act has the Supplier as its subject, so the act reading
    of :func:`_party_contradiction` did not see it."""
    own = {word for p in parties for word in re.findall(r"[a-z]+", p.label.lower())}
    for match in _ROLE_NAME.finditer(_plain(claim)):
        role = match.group(0)
        if role.lower() not in own and not any(_mentions_party(s.quote, role) for s in cited):
            reason = f"it names the {role}, whom neither the contract's parties nor its source name"
            return Contradiction(claim, cited[0].number if cited else 0, reason)
    return None


#: Words that stand before a party without acting on it: a preposition, a conjunction or a
#: determiner ("by the Company", "and Customer") says nothing of the party's role.
_NOT_GOVERNING = frozenset(
    "the a an by to of for from with and or nor between that which than against on upon in at "
    "as if whether whom who its their such each either neither both any all".split()
)
_GOVERNED = r"\b([A-Za-z]+)\s+(?:(?i:the)\s+)?"


def _verb_stem(word: str) -> str:
    """A verb without its ending ("giving", "gives" and "give" alike)."""
    word = word.lower()
    for ending in ("ing", "ed", "es", "s", "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def _governed(text: str, parties: Sequence[Party]) -> set[tuple[str, str]]:
    """The (verb, party) pairs of ``text`` in which the verb acts on the party ("give the
    Consultant notice": ("giv", "Consultant"))."""
    pairs = set()
    for party in parties:
        pattern = re.compile(_GOVERNED + rf"{re.escape(party.label)}\b")
        for match in pattern.finditer(text):
            if match.group(1).lower() not in _NOT_GOVERNING:
                pairs.add((_verb_stem(match.group(1)), party.label))
    return pairs


def _object_contradiction(
    claim: str, restated: tuple[Source, str] | None, parties: Sequence[Party]
) -> Contradiction | None:
    """Rule "a party swapped", of the party acted on: a restatement that has a verb act on one
    party where the sentence it restates has the same verb act on another ("(b) by giving the
    Company 3 months prior notice" restating "(b) by the Company electing to give the Consultant
    3 months prior notice": the Company's right to end the agreement read as the Consultant's)."""
    if len(parties) < 2 or restated is None:
        return None
    source, piece = restated
    theirs = _governed(piece, parties)
    for verb, party in sorted(_governed(_plain(claim), parties)):
        others = sorted(p for v, p in theirs if v == verb and p != party)
        if others and (verb, party) not in theirs:
            where = " ".join(piece.split())[:200]
            reason = f'it has the act fall on {party} where the source has it fall on {others[0]}: "{where}"'
            return Contradiction(claim, source.number, reason)
    return None


def _unit_contradiction(
    claim: str, cited: Sequence[Source], asked: list[ValueMention]
) -> Contradiction | None:
    if any(find_values(s.quote, ("duration",)) for s in cited):
        return None  # the value check compares durations its sources state
    for value in find_values(_plain(claim), ("duration",)):
        if any(same_value(value, q) for q in asked):
            continue
        number = value.normalized.split(" ", 1)[0]
        bare = re.compile(rf"(?<![\w.,$€£]){re.escape(number)}(?![\w%]|[.,]\d)")
        for source in cited:
            if bare.search(source.quote):
                reason = f"it reads {value.text} where the source gives {number} with no unit of time"
                return Contradiction(claim, source.number, reason)
    return None


#: Share of a claim's content words the source sentence it restates holds (rule "a restatement
#: keeps its qualifiers" reads a claim against the one sentence it restates, not a summary of many).
RESTATES_ONE = 0.6


def _restated_sentence(claim: str, cited: Sequence[Source]) -> tuple[Source, str] | None:
    """The sentence of ``cited`` that ``claim`` restates: the one holding most of its content
    words, if it holds at least :data:`RESTATES_ONE` of them."""
    words = content_words(claim)
    pieces = [(s, piece) for s in cited for piece in claims(s.quote)]
    if not words or not pieces:
        return None
    source, piece = max(pieces, key=lambda pair: len(words & content_words(pair[1])))
    return (source, piece) if len(words & content_words(piece)) >= RESTATES_ONE * len(words) else None


def _qualifier_contradiction(
    claim: str, restated: tuple[Source, str] | None, lead_ins: Mapping[int, str]
) -> Contradiction | None:
    if restated is None:
        return None
    plain = _plain(claim)
    source, piece = restated
    if source.number in lead_ins and piece == claims(source.quote)[0]:
        # rule "a list item is read under its lead-in": "Upon termination of the Agreement:" is
        # the condition of "(iii) Customer will promptly cease use of the Services"
        piece = f"{lead_ins[source.number]} {piece}"
    dropped = dropped_qualifier(plain, piece)
    if dropped is not None:
        return Contradiction(
            claim, source.number, f'it leaves out what the source makes it depend on: "{dropped.text}"'
        )
    added = added_condition(plain, piece)
    if added is not None:
        where = " ".join(piece.split())[:200]
        return Contradiction(
            claim, source.number, f'it adds a condition ("{added}") the source does not state: "{where}"'
        )
    return None


def _restates(claim: str, piece: str) -> bool:
    """Whether ``claim`` is ``piece`` in nearly its own words, negated alike: the classifier,
    trained on short hypotheses, reads some long restatements of a sentence as contradicting it."""
    words = _stems(claim)
    return bool(words) and negated_alike(claim, piece) and len(words & _stems(piece)) >= RESTATED * len(words)


def _nli_contradiction(
    claim: str, cited: Sequence[Source], scorer: SentenceScorer, at: float
) -> Contradiction | None:
    pieces = [(s, piece) for s in cited for piece in claims(s.quote) or [s.quote]]
    if not pieces or any(_restates(_plain(claim), piece) for _, piece in pieces):
        return None
    rows = scorer.probabilities(_plain(claim), [piece for _, piece in pieces])
    if max(float(row[0]) for row in rows) >= at:
        return None  # a sentence of its sources supports it
    best = max(range(len(pieces)), key=lambda i: float(rows[i][1]))
    if float(rows[best][1]) < at:
        return None
    source, piece = pieces[best]
    return Contradiction(claim, source.number, f'the source says "{piece}"')


def contradictions(
    texts: Sequence[str],
    sources: Sequence[Source],
    question: str,
    *,
    scorer: SentenceScorer | None = None,
    at: float = 0.5,
    parties: Sequence[Party] = (),
    lead_ins: Mapping[int, str] | None = None,
) -> list[Contradiction]:
    """The claims of ``texts`` that their sources contradict (value, exception, join, condition, unit
    and, given the contract's ``parties``, party checks, qualifiers, read for a list item with its
    lead-in in ``lead_ins`` by source number, then the classifier when ``scorer`` is given), at most
    one per claim."""
    by_number = {s.number: s for s in sources}
    asked = find_values(question)
    found: list[Contradiction] = []
    for text in texts:
        for claim in claims(text):
            if claim.rstrip().endswith("?"):
                continue
            numbers = [int(n) for n in REFERENCE.findall(claim)]
            cited = [by_number[n] for n in numbers if n in by_number] or list(sources)
            if _only_quotes(claim, cited):
                continue
            restated = _restated_sentence(_plain(claim), cited)  # read by the object and qualifier checks
            contradiction = (
                _value_contradiction(claim, cited, asked)
                or _exception_contradiction(claim, cited)
                or _joined_contradiction(claim, cited, asked)
                or _condition_contradiction(claim, cited)
                or _unit_contradiction(claim, cited, asked)
                or _party_contradiction(claim, cited, parties)
                or _invented_party(claim, cited, parties)
                or _object_contradiction(claim, restated, parties)
                or _qualifier_contradiction(claim, restated, lead_ins or {})
            )
            if contradiction is None and scorer is not None:
                contradiction = _nli_contradiction(claim, cited, scorer, at)
            if contradiction is not None:
                found.append(contradiction)
    return found


def remove_claims(text: str, contradicted: Sequence[Contradiction]) -> str:
    """``text`` without the contradicted sentences."""
    bad = {c.claim for c in contradicted}
    return " ".join(s for s in prose_sentences(text) if s.strip() not in bad).strip()
