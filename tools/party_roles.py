"""Whose side a clause is on: which party a clause binds (the one it puts a duty, a restriction or
a limit on) and which it benefits (the one it gives a right, a remedy or a payment), in the terms
the contract defines its parties by, and which of them is the customer and which the supplier.

A playbook is written from one side ("pre-agreed damages payable by us need approval"): a clause
by which the supplier pays the buyer liquidated damages is the buyer's own remedy, not a
deviation of the buyer's position. The rules read the clause's own sentences, nothing else:

- rule "role words": a party's side from the term it is defined as (a "Buyer", "Customer" or
  "Licensee" receives and pays; a "Supplier", "Vendor" or "Licensor" provides); other terms
  ("Company", "Partner") have no side, and the user names theirs;
- rule "the subject binds": a party (or "each party", "neither party") that shall, must, will,
  agrees to, shall not or may not do something is bound by the sentence; a party that may do
  something, or has or is entitled to a right, benefits;
- rule "the object benefits": a party paid, indemnified, reimbursed or given notice, consent or a
  report ("pay the Buyer", "the prior written consent of Licensor") benefits;
- rule "a party's liability": a party whose liability a sentence limits ("shall not exceed")
  benefits from it; one whose liability it names otherwise ("nothing limits either Party's
  liability") is bound by it;
- rule "the other party": with two parties, a clause that binds one and names no beneficiary
  benefits the other, and one that benefits one and binds nobody binds the other; a clause that
  binds or benefits both does so for "each".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tools.structure.sentences import sentence_spans
from tools.value_reading import ORGANISATION_SUFFIX, PREAMBLE_CHARS, party_reading

Side = Literal["customer", "supplier"]
#: Every party alike ("each party", "neither party", "the parties").
EACH = "each"

#: Rule "role words": defined terms whose words say which side the party is on.
_CUSTOMER_WORDS = frozenset(
    "customer buyer purchaser licensee client distributor reseller franchisee subscriber lessee tenant "
    "sublicensee retailer dealer".split()
)
_SUPPLIER_WORDS = frozenset(
    "supplier vendor seller licensor provider contractor consultant manufacturer franchisor lessor "
    "landlord developer maker producer".split()
)
#: Every role word, by which a writer may name a party the contract names otherwise.
ROLE_WORDS = _CUSTOMER_WORDS | _SUPPLIER_WORDS
_EACH = r"(?i:(?:each|either|neither|both|any|the|a)\s+(?:party|parties)|each\s+of\s+the\s+parties)"
#: Words that may stand between a party and its modal ("the Supplier hereby agrees to", "2TheMart
#: through a CPA may"): a few, but never a conjunction ("from the Supplier and shall not").
_BETWEEN = r"(?:(?!(?i:and|or|nor|but|not|no|never)\b)[\w-]+\s+){0,4}?"
#: Rule "a cap benefits the liable": a party's liability limited ("shall not exceed").
_LIMIT = re.compile(
    r"(?i:shall\s+not\s+exceed|will\s+not\s+exceed|not\s+to\s+exceed|(?:is|be)\s+limited\s+to|in\s+no\s+event)"
)
_DUTY = (
    r"(?:shall|will|must|agrees?|undertakes?\s+to|covenants?|is\s+required\s+to|appoints?|"
    r"are\s+required\s+to|is\s+obligated\s+to|may\s+not|cannot|is\s+not\s+permitted\s+to|shall\s+be\s+liable|"
    r"will\s+be\s+liable|is\s+liable|are\s+liable|warrants?|represents?|grants?)"
)
_RIGHT = (
    r"(?:may(?!\s+not)|shall\s+have\s+the\s+right|will\s+have\s+the\s+right|has\s+the\s+right|have\s+the\s+right|"
    r"shall\s+be\s+entitled|will\s+be\s+entitled|is\s+entitled|are\s+entitled|reserves\s+the\s+right|"
    r"(?:shall|will)\s+have\s+the\s+(?:ability|option|exclusive)|ha(?:s|ve)\s+the\s+(?:ability|option)|"
    r"(?:shall|will)\s+be\s+(?:the|an?)\s+exclusive|is\s+(?:the|an?)\s+exclusive)"
)
_BENEFIT_OBJECT = (
    r"(?:pay|paid\s+to|payable\s+to|indemnify|reimburse|compensate|refund|credit|notify|inform|"
    r"grants?|appoints?|consent\s+of|approval\s+of|permission\s+of|benefit\s+of|favou?r\s+of|"
    r"(?:provide|deliver|furnish|submit|give|send|report|disclose|make\s+available|paid|payable|due)\w*"
    r"\s+(?:[\w-]+\s+){0,3}?to)"
)


@dataclass(frozen=True)
class Party:
    """A party as the contract names it: its name, the term it is defined as (its role in the
    clauses: "Supplier"), and its side where the term says it (rule "role words")."""

    name: str
    term: str
    side: Side | None

    @property
    def label(self) -> str:
        """How clauses call it: its defined term, else its name."""
        return self.term or self.name


@dataclass(frozen=True)
class ClauseRoles:
    """Which parties (their labels, or :data:`EACH`) a clause binds and which it benefits."""

    binds: tuple[str, ...]
    benefits: tuple[str, ...]


def side_of(term: str) -> Side | None:
    """Rule "role words": a defined term's side, from its words ("Service Provider": supplier)."""
    words = set(re.findall(r"[a-z]+", term.lower()))
    if words & _CUSTOMER_WORDS and not words & _SUPPLIER_WORDS:
        return "customer"
    if words & _SUPPLIER_WORDS and not words & _CUSTOMER_WORDS:
        return "supplier"
    return None


#: A term the opening defines ('("Distributor")', '(hereinafter "PivX")', '(the "Company")').
_DEFINED_TERM = re.compile(r"\([^()\"“”]{0,80}?[\"“]([A-Z][A-Za-z0-9&.\- ]{0,40}?)[\"”]\s*\)")
#: What names an organisation just before a term it defines ("AT&T Mobility LLC, ... (... "AT&T")"):
#: a corporate suffix, or a word only an institution's name holds.
_INSTITUTION = re.compile(r"\b(?:bank|university|trust|association|s\.r\.l|srl|sas|pte)\b", re.I)
#: A capitalised word or two acting ("Distributor shall", "the Agent will").
_ACTOR = re.compile(
    r"\b(?:(?i:the)\s+)?([A-Z][A-Za-z&\-]+(?:\s+[A-Z][A-Za-z&\-]+)?)\s+(?:shall|will|may|must|agrees)\b"
)
#: How far into a contract its parties' terms are defined, and how often a term must act in
#: the contract's sentences to be taken for a party (rule "parties act").
DEFINITIONS_CHARS = 8000
MIN_ACTS = 2
MAX_PARTIES = 4


#: Defined terms that are things, not parties, though they "shall" ("this Agreement shall").
_THINGS = frozenset(
    "agreement effective date term territory product products services service confidential information "
    "party parties section exhibit schedule affiliate affiliates license licence fee fees order orders "
    "purchase order price prices notice".split()
)


def _acts(text: str, term: str) -> int:
    """How many times ``term`` does something ("Distributor shall purchase"), not counting what is
    done to it ("the Products shall be delivered")."""
    if " ".join(term.lower().split()) in _THINGS:
        return 0
    return len(re.findall(rf"\b{re.escape(term)}\s+(?:shall|will|may|must|agrees|hereby)\b(?!\s+be\b)", text))


def _organisation_before(text: str, at: int) -> bool:
    """Whether an organisation is named in the 250 characters before ``at``."""
    before = text[max(0, at - 250) : at]
    return bool(ORGANISATION_SUFFIX.search(before) or _INSTITUTION.search(before))


def contract_parties(text: str) -> list[Party]:
    """The contract's parties, each with the term its clauses call it by and its side: the
    preamble's parties, the terms the opening defines and the role words that act in the text
    (rule "parties act": a candidate is a party only if at least :data:`MIN_ACTS` sentences have
    it shall, will, may or must do something), the preamble's first, then the most active."""
    reading = party_reading(text, 0, min(len(text), PREAMBLE_CHARS))
    named = {term or name: name for name, term in (reading.parties if reading else ())}
    candidates = list(named)
    candidates += [
        m.group(1).strip()
        for m in _DEFINED_TERM.finditer(text[:DEFINITIONS_CHARS])
        if _organisation_before(text, m.start()) and "party" not in m.group(1).lower()
    ]
    opening = text[:DEFINITIONS_CHARS]
    candidates += [
        m.group(1)
        for m in _ACTOR.finditer(text)
        if side_of(m.group(1)) is not None
        or (m.group(1).isupper() and len(m.group(1)) >= 3 and m.group(1) in opening)
    ]
    seen: dict[str, int] = {}
    for term in candidates:
        if term not in seen:
            seen[term] = _acts(text, term)
    acting = [term for term, acts in seen.items() if acts >= MIN_ACTS]
    preamble = [t for t in acting if t in named]
    others = sorted((t for t in acting if t not in named), key=lambda t: -seen[t])
    chosen = (preamble + others)[:MAX_PARTIES]
    return [Party(named.get(term, term), term, side_of(term)) for term in chosen]


def _alternation(parties: Sequence[Party]) -> str:
    labels = sorted({p.label for p in parties if p.label}, key=len, reverse=True)
    return "|".join(re.escape(label) for label in labels)


def _who(found: str, parties: Sequence[Party]) -> str:
    """A matched mention's label, or :data:`EACH` for every party."""
    for party in parties:
        if found.lower() == party.label.lower():
            return party.label
    return EACH


def _patterns(parties: Sequence[Party], every_case: bool) -> dict[str, re.Pattern[str]]:
    """The rules' patterns over ``parties``' terms, as the contract capitalises them ("Supplier",
    not "any other supplier"), or in any case for a sentence written in capitals."""
    names = _alternation(parties)
    flags = re.I if every_case else 0
    party = rf"{names}|{_EACH}" if names else _EACH
    who = rf"(?:(?i:the)\s+)?(?P<who>{party})"
    return {
        "bound": re.compile(rf"\b{who}\s+{_BETWEEN}(?i:{_DUTY})\b", flags),
        "right": re.compile(rf"\b{who}\s+{_BETWEEN}(?i:{_RIGHT})\b", flags),
        "object": re.compile(
            rf"\b(?i:{_BENEFIT_OBJECT})\s+(?:(?i:the)\s+)?(?P<who>{names})\b" if names else r"(?!x)x", flags
        ),
        "consent": re.compile(
            rf"\b(?P<who>{names})['’]s?\s+(?:(?i:prior|express|written|,)\s*)*(?i:consent|approval)\b"
            if names
            else r"(?!x)x",
            flags,
        ),
        "excused": re.compile(
            rf"\b{who}\s+{_BETWEEN}(?i:(?:shall|will)\s+(?:not\s+(?:be\s+)?(?:liable|responsible)|"
            rf"have\s+no\s+liability))\b",
            flags,
        ),
        "liable": re.compile(rf"\b{who}['’]s?\s+(?:[\w,'’]+\s+){{0,4}}?(?i:liability)\b", flags),
        "mentioned": re.compile(rf"\b{_EACH}", flags),
        # rule "the audited is bound": "audit the books and records of Detto", "inspect Vendor's records"
        "audited": re.compile(
            rf"\b(?i:audit|inspect|examine)\w*\s+(?:[\w,-]+\s+){{0,6}}?(?:(?i:of|the)\s+)*(?P<who>{names})\b"
            if names
            else r"(?!x)x",
            flags,
        ),
        # "Bioamber and Cargill agree", "either you or Nationwide may": both act
        "both": re.compile(
            rf"\b(?:(?i:either)\s+)?(?:(?i:the)\s+)?(?:{party})\s+(?i:and|or)\s+(?:(?i:the)\s+)?(?:{party})\s+"
            rf"{_BETWEEN}(?i:{_DUTY}|{_RIGHT})\b",
            flags,
        ),
    }


#: A party right after a preposition is no subject ("furnished to Detto will be free").
_PREPOSITION = re.compile(r"\b(?i:to|by|from|of|for|with|against|than)\s+$")


def _capitals(sentence: str) -> bool:
    letters = [ch for ch in sentence if ch.isalpha()]
    return bool(letters) and sum(ch.isupper() for ch in letters) > 0.8 * len(letters)


def clause_roles(clause: str, parties: Sequence[Party]) -> ClauseRoles:
    """Which of ``parties`` ``clause`` binds and which it benefits (rules "the subject binds",
    "the object benefits", "a party's liability", "the other party"); a clause that names no
    party but "either party" binds and benefits each; otherwise both empty."""
    patterns = {every_case: _patterns(parties, every_case) for every_case in (False, True)}
    binds: list[str] = []
    benefits: list[str] = []
    mutual = False
    for start, end in sentence_spans(clause, min_chars=1):
        sentence = clause[start:end]
        found = patterns[_capitals(sentence)]
        liable = [_who(m.group("who"), parties) for m in found["liable"].finditer(sentence)]
        (benefits if _LIMIT.search(sentence) else binds).extend(liable)
        if found["both"].search(sentence):
            binds.append(EACH)
            benefits.append(EACH)
        excused = list(found["excused"].finditer(sentence))
        benefits.extend(_who(m.group("who"), parties) for m in excused)
        rights = list(found["right"].finditer(sentence))
        benefits.extend(_who(m.group("who"), parties) for m in rights)
        other = {m.start() for m in (*excused, *rights)}
        binds.extend(
            _who(m.group("who"), parties)
            for m in found["bound"].finditer(sentence)
            if m.start() not in other and not _PREPOSITION.search(sentence[: m.start()])
        )
        binds.extend(_who(m.group("who"), parties) for m in found["audited"].finditer(sentence))
        benefits.extend(_who(m.group("who"), parties) for m in found["object"].finditer(sentence))
        benefits.extend(_who(m.group("who"), parties) for m in found["consent"].finditer(sentence))
        mutual = mutual or bool(found["mentioned"].search(sentence))
    if not binds and not benefits and mutual:
        return ClauseRoles((EACH,), (EACH,))
    return _completed(binds, benefits, parties)


def duty_bearers(sentence: str, parties: Sequence[Party]) -> tuple[str, ...]:
    """Rule "the subject binds" alone: the parties ``sentence`` puts a duty on as the subject of
    "shall", "must", "agrees to", "may not"... ("the Supplier shall deliver"), :data:`EACH` for
    "each party"; a party only excused or given a right is no bearer, and no bearer is inferred
    from the other party (unlike :func:`clause_roles`)."""
    found = _patterns(parties, _capitals(sentence))
    other = {m.start() for key in ("excused", "right") for m in found[key].finditer(sentence)}
    bearers = (
        _who(m.group("who"), parties)
        for m in found["bound"].finditer(sentence)
        if m.start() not in other and not _PREPOSITION.search(sentence[: m.start()])
    )
    return tuple(dict.fromkeys(bearers))


#: What a party gives as a warranty: "warrants", "represents and warrants to Developer that",
#: "further guarantees that". A covenant is a promise of conduct ("covenants that it shall not
#: attempt", "covenants that it is and will remain in compliance"), a duty: on the open-question
#: bank's tune half, taking "covenants that" as a warranty filled a supplier's places with
#: compliance covenants and a developer's with its non-compete.
_WARRANTS = r"(?:represents?|warrants?|guarantees?)"


def warrantors(sentence: str, parties: Sequence[Party]) -> tuple[str, ...]:
    """Rule "the subject warrants": the parties ``sentence`` has represent, warrant or guarantee
    something as its subject ("CRO warrants to Client that", "DSS represents and warrants"),
    :data:`EACH` for "each party"; a party a warranty is given to is none ("warrants to Client")."""
    names = _alternation(parties)
    party = rf"{names}|{_EACH}" if names else _EACH
    giving = re.compile(
        rf"\b(?:(?i:the)\s+)?(?P<who>{party})\s+{_BETWEEN}(?i:{_WARRANTS})\b",
        re.I if _capitals(sentence) else 0,
    )
    givers = (
        _who(m.group("who"), parties)
        for m in giving.finditer(sentence)
        if not _PREPOSITION.search(sentence[: m.start()])
    )
    return tuple(dict.fromkeys(givers))


@dataclass(frozen=True)
class Act:
    """What a sentence has a party do: its label (or :data:`EACH`), whether it is a duty ("shall
    pay") or a right ("may terminate"), and the act's verb, lowercased ("pay", "terminate")."""

    party: str
    role: Literal["duty", "right"]
    verb: str


#: Modal words after which the act's own verb follows ("shall pay", "agrees to pay"); any other
#: word of a duty or right is the act itself ("grants", "warrants", "appoints").
_AUXILIARIES = frozenset(
    "shall will must may cannot is are agrees agree undertakes undertake covenants covenant has have "
    "reserves hereby".split()
)


def acts_of(sentence: str, parties: Sequence[Party]) -> list[Act]:
    """The acts ``sentence`` gives its parties as their subject: "the Customer may terminate"
    (a right), "the Supplier shall not subcontract" (a duty), "DSS hereby grants" (a duty whose
    word is the act), "each Party shall keep" (:data:`EACH`)."""
    names = _alternation(parties)
    party = rf"{names}|{_EACH}" if names else _EACH
    act = re.compile(
        rf"\b(?:(?i:the)\s+)?(?P<who>{party})\s+{_BETWEEN}(?P<modal>(?P<right>(?i:{_RIGHT}))|(?i:{_DUTY}))\s+"
        r"(?:(?i:not|also|only|then|promptly|immediately|to|be|have|that|it)\s+)*(?P<verb>[A-Za-z]+)",
        0 if not _capitals(sentence) else re.I,
    )
    found = []
    for m in act.finditer(sentence):
        modal = m.group("modal").split()[0].lower()
        verb = m.group("verb") if modal in _AUXILIARIES else modal
        found.append(
            Act(_who(m.group("who"), parties), "right" if m.group("right") else "duty", verb.lower())
        )
    return found


def _completed(binds: list[str], benefits: list[str], parties: Sequence[Party]) -> ClauseRoles:
    """Rule "the other party", and every party named on one side as :data:`EACH`."""
    labels = [p.label for p in parties]

    def whole(found: list[str]) -> tuple[str, ...]:
        named = set(found)
        if EACH in named or (len(labels) > 1 and named >= set(labels)):
            return (EACH,)
        return tuple(label for label in labels if label in named)

    bound, benefiting = whole(binds), whole(benefits)
    if bound == (EACH,) and not benefiting:
        return ClauseRoles(bound, bound)
    if benefiting == (EACH,) and not bound:
        return ClauseRoles(benefiting, benefiting)
    if len(labels) == 2:
        if bound and not benefiting:
            benefiting = (EACH,) if bound == (EACH,) else tuple(x for x in labels if x not in bound)
        elif benefiting and not bound:
            bound = (EACH,) if benefiting == (EACH,) else tuple(x for x in labels if x not in benefiting)
    return ClauseRoles(bound, benefiting)
