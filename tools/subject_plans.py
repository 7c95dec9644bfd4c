"""Open questions on one subject (liability, intellectual property, disputes, notices,
assignment, amendment, confidentiality) planned from the clause tree and the contract's sentences
(rule "a subject's own sentences").

Retrieval finds the passages most like the question; a report built from them quotes the clauses
that share its words (the consequential-damages exclusion for "How is liability limited?", and not
the cap two clauses on) and took three or more model calls to draft. Each subject here says how a
question names it, which section titles name it and which sentences state it. The plan reads every
sentence of the contract once, in document order, and keeps those:

- inside a section whose title names the subject ("9.10 Governing Law; Jurisdiction", "ARTICLE VII
  NOTICES") that mention it;
- anywhere else, that state it in words a lawyer would look for ("shall be governed by the laws
  of", "in no event shall ... be liable for ... consequential damages");
- that refer by number to a section whose title names it ("The obligations in Sections 2, 3 and
  4 survive ... for three (3) years", where Section 2 is "Confidentiality Obligations").

Where the question asks some aspects only ("How long ..., and what exceptions apply?"), the
subject's sentences on those aspects are the answer (:class:`Aspect`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from clausewise.core.domain import ClauseTree, Span
from tools.retrieval.spans import covered, overlap
from tools.structure.sentences import clause_bodies, sentences_within
from tools.structure.xrefs import find_cross_references

#: Sentences shown at most: a bound on a long contract's list, as for the other plans.
SENTENCES = 8
#: Longest sentence taken (a longer "sentence" is a run the splitter could not cut).
SENTENCE_CHARS = 1500

_I = re.I | re.S


@dataclass(frozen=True)
class Aspect:
    """A part of a subject a question may ask for alone: ``asked`` finds it in a question,
    ``stated`` in a sentence of the subject."""

    name: str
    asked: re.Pattern[str]
    stated: re.Pattern[str]


@dataclass(frozen=True)
class Subject:
    """One subject of open questions: how a question names it (``asked``), the section titles
    that name it (``titles``), the words a sentence inside such a section needs to be on it
    (``mentioned``), the words that put a sentence anywhere on it (``stated``), and those that put
    it on a neighbouring subject instead (``beside``: an indemnity is not a limit of liability,
    though it names liabilities "including but not limited to" costs)."""

    name: str
    asked: re.Pattern[str]
    titles: re.Pattern[str]
    mentioned: re.Pattern[str]
    stated: re.Pattern[str]
    aspects: tuple[Aspect, ...] = ()
    beside: re.Pattern[str] | None = None


#: An indemnity: beside liability's limits and beside ownership, though it names liabilities "not
#: limited to" costs or a claim that intellectual property is infringed.
_INDEMNITY = re.compile(
    r"\b(?:shall|will|agrees?\s+to)\s+(?:\w+\s+){0,3}indemnify\b|\bhold\s+\w*\s*harmless\b", _I
)

#: Rule "a number's point ends no sentence": the subjects' words read across the rest of their
#: sentence (:data:`_IN_SENTENCE`), anything but a stop or a semicolon, a point inside a number
#: ("Section 1.01", "$1.5 million") included. Read as a stop, "Distributor shall not assign the
#: rights granted in this Section 1.01 without the prior written consent of the Company" was no
#: assignment sentence (on the tune half, the one sentence this changes).
_IN_SENTENCE = r"(?:[^.;]|\.(?=\d))"
_DAMAGES_KINDS = r"(?:consequential|incidental|indirect|punitive|exemplary|special|lost\s+profits?)"

LIABILITY = Subject(
    name="liability",
    asked=re.compile(r"\bliab(?:le|ility|ilities)\b", _I),
    titles=re.compile(r"\bliabilit\w*|\bdamages\b|\blimitations?\b", _I),
    mentioned=re.compile(r"\bliab\w*|\bdamages\b|\blosse?s?\b|\bremed(?:y|ies)\b", _I),
    stated=re.compile(
        rf"\b(?:not|no|never)\b{_IN_SENTENCE}{{0,80}}\bliab(?:le|ility)\b|"
        rf"\bliab(?:le|ility)\b{_IN_SENTENCE}{{0,120}}\b(?:not\s+exceed|exceed|limited\s+to|capped|cap\b)|"
        rf"\b(?:aggregate|total|maximum|cumulative|entire)\s+liability\b|"
        rf"\b{_DAMAGES_KINDS}\b{_IN_SENTENCE}{{0,60}}\bdamages\b|\blimitation\s+of\s+liability\b|"
        rf"\b(?:unlimited|uncapped)\s+liab\w*|\bliable\b{_IN_SENTENCE}{{0,40}}\bwithout\s+limitation\b|"
        rf"\bsole\s+(?:and\s+exclusive\s+)?remedy\b|\bremed(?:y|ies)\s+shall\s+be\s+limited\b|"
        rf"\bmust\s+be\s+(?:commenced|brought)\s+within\b|\bno\s+action\b{_IN_SENTENCE}{{0,80}}\bmay\s+be\s+brought\b",
        _I,
    ),
    beside=re.compile(rf"{_INDEMNITY.pattern}|\binsurance\b", _I),
)

_IP_THINGS = (
    r"(?:intellectual\s+property|patents?|copyrights?|trade\s*marks?|service\s+marks?|marks?|brand|inventions?|"
    r"work\s+products?|deliverables?|technology|improvements?|software|know-how|trade\s+secrets?|goodwill|"
    r"works?\s+of\s+authorship|proprietary\s+rights?)"
)
#: Owning, not "at its own cost": "own" after a possessive is no ownership.
_OWNING = (
    r"(?:(?<!\bits\s)(?<!\btheir\s)(?<!\bhis\s)(?<!\bher\s)(?<!\bour\s)(?<!\byour\s)own(?:s|ed|er|ers|ership)?|"
    r"property\s+of|right,?\s+title,?\s+and\s+interest|title\s+to|vest(?:s|ed)?\s+in|"
    r"belong\w*\s+to|works?\s+made\s+for\s+hire|hereby\s+(?:irrevocably\s+)?assigns?|"
    r"retain(?:s|ed)?\s+(?:all\s+|its\s+|sole\s+|full\s+)*(?:right|title|ownership|intellectual|property)|"
    r"(?:exclusive|sole|separate)\s+property|assign(?:s|ed)?\s+to)"
)
INTELLECTUAL_PROPERTY = Subject(
    name="intellectual property",
    asked=re.compile(
        r"\bintellectual\s+property\b|\bIP\b|\bwork\s+product\b|\bownership\b|\bwho\s+owns\b|\binventions?\b",
        re.S,
    ),
    titles=re.compile(
        r"\bintellectual\s+property\b|\bproprietary\s+rights?\b|\bownership\b|\binventions?\b|\btrade\s*marks?\b|"
        r"\bpatents?\b|\bcopyrights?\b|\bwork\s+product\b",
        _I,
    ),
    mentioned=re.compile(rf"\b{_OWNING}\b", _I),
    stated=re.compile(
        rf"\b{_OWNING}\b[^;]{{0,160}}\b{_IP_THINGS}\b|\b{_IP_THINGS}\b[^;]{{0,160}}\b{_OWNING}\b|"
        rf"\bintellectual\s+property\s+(?:rights\s+)?of\b|"
        rf"\bregistered\s+(?:the\s+)?(?:marks?|trade\s*marks?|patents?|copyrights?)\b",
        _I,
    ),
    beside=_INDEMNITY,
)

_WHICH_LAW = Aspect(
    name="which law",
    asked=re.compile(r"\blaws?\b|\bgoverning\b|\bgoverns\b", _I),
    stated=re.compile(r"\blaws?\s+of\b|\bgoverned\b|\bgoverning\s+law\b|\bconstrued\b", _I),
)
_WHICH_COURTS = Aspect(
    name="which courts",
    asked=re.compile(r"\bcourts?\b|\bforum\b|\bjurisdiction\b|\bvenue\b|\bwhere\b", _I),
    stated=re.compile(r"\bcourts?\b|\bjurisdiction\b|\bvenue\b|\bforum\b|\bseat\b|\bheld\s+in\b", _I),
)
_HOW_RESOLVED = Aspect(
    name="how disputes are resolved",
    asked=re.compile(
        r"\bresol\w*|\bsettle\w*|\bdecided\b|\barbitrat\w*|\bmediat\w*|\bhow\b[^?]{0,40}\bdisputes?\b", _I
    ),
    stated=re.compile(
        r"\barbitrat\w*|\bmediat\w*|\bnegotiat\w*|\bsettled\b|\bresolved?\b|\binjunct\w*|\brelief\b|\bjury\b|"
        r"\bcourts?\b|\bjurisdiction\b|\blaws?\s+of\b|\bgoverned\b",  # decided by a court, under a law
        _I,
    ),
)
DISPUTES = Subject(
    name="disputes",
    asked=re.compile(
        r"\bdisputes?\b|\bgoverning\s+law\b|\bwhich\s+laws?\b|\bcourts?\b|\bforum\b|\bjurisdiction\b|"
        r"\barbitrat\w*|\bvenue\b|\blitigat\w*",
        _I,
    ),
    titles=re.compile(
        r"\bgoverning\s+law\b|\bapplicable\s+law\b|\bchoice\s+of\s+law\b|\bjurisdiction\b|\bvenue\b|\bdisputes?\b|"
        r"\barbitration\b|\bmediation\b|\bjury\b|\bforum\b|\binjunct\w*|\bequitable\s+relief\b",
        _I,
    ),
    mentioned=re.compile(
        r"\blaws?\b|\bcourts?\b|\bdisputes?\b|\barbitra\w*|\bjurisdiction\b|\bvenue\b|\brelief\b|\bjury\b", _I
    ),
    stated=re.compile(
        r"\bgoverned\s+(?:in\s+accordance\s+with|by)\b|\bgoverning\s+law\b|\bconstrued\s+(?:and\s+\w+\s+)?in\s+"
        rf"accordance\s+with\b|\b(?:exclusive|non-exclusive)\s+jurisdiction\b|\bsubmits?\s+to\s+the\b{_IN_SENTENCE}{{0,40}}"
        r"\bjurisdiction\b|\bvenue\b|\barbitrat\w*|\bmediat(?:ion|or)\b|\bjury\s+trial\b|\binjunctive\s+relief\b|"
        rf"\bdisputes?\b{_IN_SENTENCE}{{0,160}}\b(?:settled|resolved|submitted|referred|finally|determined|heard)\b",
        _I,
    ),
    aspects=(_WHICH_LAW, _WHICH_COURTS, _HOW_RESOLVED),
)

NOTICES = Subject(
    name="notices",
    asked=re.compile(
        r"\bnotices?\b[^?]{0,40}\b(?:given|sent|served|delivered|addressed|requirements?)\b|"
        r"\b(?:formal|written)\s+notices?\b|\bhow\b[^?]{0,30}\bnotices?\b",
        _I,
    ),
    titles=re.compile(
        r"^(?!.*\bterminat)(?:.*\b(?:notices?|communications?|addresses)\b)(?!\s+(?:of|period))", _I
    ),
    mentioned=re.compile(r"\bnotices?\b|\bcommunications?\b|\baddress\w*|\bdeemed\b|\bdeliver\w*", _I),
    stated=re.compile(
        r"\bnotices?\b[^.]{0,200}\b(?:in\s+writing|deemed|delivered|sent|addressed|served)\b[^.]{0,200}"
        r"\b(?:mail|courier|facsimile|fax|e-?mail|by\s+hand|personal(?:ly)?\s+deliver\w*|address\w*|receipt)\b|"
        r"\bdeemed\s+(?:to\s+have\s+been\s+)?(?:duly\s+)?(?:given|received|delivered|served)\b|"
        r"\bchange\s+(?:its|their|the|his|her)\s+address\b",
        _I,
    ),
)

ASSIGNMENT = Subject(
    name="assignment",
    asked=re.compile(r"\bassign\w*|\btransfer\w*|\bchange\s+(?:of|in)\s+control\b|\bsuccessors?\b", _I),
    titles=re.compile(
        r"\bassign\w*|\btransfers?\b|\bsuccessors\b|\bchange\s+(?:of|in)\s+control\b|\bsubcontract\w*|\bdelegation\b",
        _I,
    ),
    mentioned=re.compile(
        r"\bassign\w*|\btransfer\w*|\bsuccessors?\b|\bcontrol\b|\bsubcontract\w*|\bdelegat\w*|\bmerger\b", _I
    ),
    stated=re.compile(
        rf"\bassign(?:ed|s|ment)?\b{_IN_SENTENCE}{{0,120}}\b(?:this\s+agreement|the\s+agreement|its\s+rights|any\s+(?:of\s+its\s+)?"
        r"rights|obligations|consent)\b|\bchange\s+(?:of|in)\s+(?:the\s+)?(?:effective\s+)?(?:control|ownership)\b|"
        r"\b(?:may|shall|will)\s+(?:not\s+)?(?:subcontract|delegate)\b|"
        rf"\b(?:binding\s+(?:up)?on|inure\w*\s+to)\b{_IN_SENTENCE}{{0,120}}\bsuccessors\s+and\s+(?:permitted\s+)?assigns\b",
        _I,
    ),
)

AMENDMENT = Subject(
    name="amendment",
    asked=re.compile(r"\bamend\w*|\bmodif\w*|\bchange\s+the\s+terms\b|\bvar(?:y|ied|iation)\b", _I),
    titles=re.compile(r"\bamendments?\b|\bmodifications?\b|\bvariations?\b|\bentire\s+agreement\b", _I),
    mentioned=re.compile(r"\bamend\w*|\bmodif\w*|\balter\w*|\bvari\w*|\bwaive\w*|\bchanges?\b", _I),
    stated=re.compile(
        r"\b(?:amend\w*|modif\w*|alter\w*|vari(?:ed|ation)|changes?\s+in\s+(?:the\s+)?scope|supplement\w*)\b"
        rf"{_IN_SENTENCE}{{0,160}}\b(?:in\s+writing|written|signed|executed|consent|instrument)\b|"
        rf"\b(?:in\s+writing|written\s+instrument)\b{_IN_SENTENCE}{{0,100}}\b(?:amend\w*|modif\w*)|"
        rf"\bchanges?\b{_IN_SENTENCE}{{0,80}}\bunless\b{_IN_SENTENCE}{{0,80}}\b(?:in\s+writing|signed)\b",
        _I,
    ),
    # an amendment of a law is no amendment of the contract ("... an earthquake, ..., amendment to
    # law or policy or any other event of force majeure")
    beside=re.compile(
        r"\b(?:amend\w*|changes?)\s+(?:to|of|in)\s+(?:any\s+|the\s+|applicable\s+)?"
        r"(?:laws?|legislation|regulations?|statutes?|polic(?:y|ies)|rules?)\b",
        _I,
    ),
)

_HOW_LONG = Aspect(
    name="how long",
    asked=re.compile(r"\bhow\s+long\b|\blasts?\b|\bduration\b|\bperiod\b|\bsurviv\w*|\bexpire\w*", _I),
    stated=re.compile(
        r"\b(?:years?|months?|surviv\w*|perpetu\w*|indefinite\w*|so\s+long\s+as|as\s+long\s+as|thereafter)\b",
        _I,
    ),
)
_EXCEPTIONS = Aspect(
    name="exceptions",
    asked=re.compile(r"\bexcept\w*|\bexclu\w*|\bcarve[-\s]?outs?\b", _I),
    stated=re.compile(
        r"\b(?:do(?:es)?|shall|will)\s+not\s+(?:apply|include|extend)\b|\bexclu\w*|"
        r"\bpublicly\s+(?:available|known)\b|\bpublic\s+domain\b|\bgenerally\s+available\b|"
        r"\brequired\s+(?:to\s+be\s+\w+\s+)?by\s+(?:law|a\s+court|court|regulation)\b|\bindependently\s+developed\b",
        _I,
    ),
)
_WHAT_IS_KEPT = Aspect(
    name="what is kept confidential",
    asked=re.compile(
        r"\bwhat\s+(?:information|must\s+be\s+kept|is\s+confidential)\b|\bwhich\s+information\b", _I
    ),
    stated=re.compile(r"\bmeans\b|\bincludes?\b|\bincluding\b|\b(?:shall|must|will|agrees?\s+to)\b", _I),
)
_DUTIES = Aspect(
    name="duties",
    asked=re.compile(r"\bobligations?\b|\bduties\b|\bundertakings?\b", _I),
    stated=re.compile(r"\b(?:shall|must|agrees?\s+to|undertakes?\s+to)\b", _I),
)
_KEEPING = r"(?:confidential\w*|non-?disclos\w*|trade\s+secrets?|proprietary\s+information)"
CONFIDENTIALITY = Subject(
    name="confidentiality",
    asked=re.compile(rf"\b{_KEEPING}\b|\bsecrecy\b", _I),
    titles=re.compile(r"\bconfidential\w*|\bnon-?disclosure\b|\bproprietary\s+information\b|\bsecrecy\b", _I),
    mentioned=re.compile(r"\binformation\b|\bdisclos\w*|\bconfidential\w*", _I),
    stated=re.compile(rf"\b{_KEEPING}\b", _I),
    aspects=(_HOW_LONG, _EXCEPTIONS, _WHAT_IS_KEPT, _DUTIES),
    # rule "a limit of liability is no confidentiality clause": a cap or an exclusion of damages
    # that excepts a breach of confidentiality is on liability ("... shall not apply with respect to
    # any claims ... relating to clause 6 (Inventions and Proprietary Information)")
    beside=LIABILITY.stated,
)

#: The subjects in the order a question is tried against them: the narrower first ("Who owns the
#: IP, and may it be assigned?" is on ownership; "Is consent needed to assign ...?" on assignment).
SUBJECTS: tuple[Subject, ...] = (
    CONFIDENTIALITY,
    INTELLECTUAL_PROPERTY,
    LIABILITY,
    DISPUTES,
    NOTICES,
    AMENDMENT,
    ASSIGNMENT,
)


def asked_aspects(subject: Subject, question: str) -> tuple[Aspect, ...]:
    """The subject's aspects ``question`` asks for ("How long ..., and what exceptions apply?":
    how long, exceptions); none when it asks for the whole subject."""
    return tuple(aspect for aspect in subject.aspects if aspect.asked.search(question))


@dataclass(frozen=True)
class _Structure:
    """Where the subject sits in the clause tree: its titled sections' spans and the spans of
    the references to them."""

    sections: list[Span] = field(default_factory=list)
    references: list[Span] = field(default_factory=list)


def _structure(subject: Subject, text: str, tree: ClauseTree | None, references: bool) -> _Structure:
    """The subject's titled sections in ``tree``, and the references to them when wanted (only an
    aspect question reads them)."""
    if tree is None:
        return _Structure()
    titled = {node.id: node.span for node in tree.walk() if node.title and subject.titles.search(node.title)}
    if not titled:
        return _Structure()
    to_them = (
        [ref.span for ref in find_cross_references(text, tree) if ref.target in titled] if references else []
    )
    return _Structure(sections=list(titled.values()), references=to_them)


def subject_sentences(
    subject: Subject,
    question: str,
    text: str,
    tree: ClauseTree | None,
    limit: int = SENTENCES,
) -> list[Span]:
    """The sentences of ``text`` on ``subject`` (see the module), read within the clause tree's own
    texts, in document order, at most ``limit``. When ``question`` asks some of the subject's
    aspects only, the sentences on them (a sentence referring to the subject's section among
    them: "The obligations in Sections 2, 3 and 4 survive ... for three (3) years"); the whole
    subject's when none states them. A list item whose lead-in is taken is not taken again: the
    lead-in is cited with its list."""
    units = clause_bodies(text, tree) if tree is not None else []
    aspects = asked_aspects(subject, question)
    structure = _structure(subject, text, tree, references=bool(aspects))
    on_subject: list[Span] = []
    on_aspects: list[Span] = []
    subject_lists: list[Span] = []  # the items of the lead-ins taken, cited with them
    aspect_lists: list[Span] = []
    sentences = sentences_within(text, units)
    read = _without_running_text(text, sentences)
    for span in sentences:
        if span[1] - span[0] > SENTENCE_CHARS or covered(span, aspect_lists if on_aspects else subject_lists):
            continue
        sentence = read[span[0] : span[1]]
        if not sentence.strip() or (subject.beside is not None and subject.beside.search(sentence)):
            continue
        titled = covered(span, structure.sections) and bool(subject.mentioned.search(sentence))
        stated = titled or bool(subject.stated.search(_NAMED_SECTION.sub(" ", sentence)))
        on_an_aspect = any(aspect.stated.search(sentence) for aspect in aspects)
        shown = _trimmed(span, read)
        items = _its_list(shown, text, tree)
        if stated:
            on_subject.append(shown)
            subject_lists.extend(items)
        if on_an_aspect and (stated or any(overlap(span, ref) for ref in structure.references)):
            on_aspects.append(shown)
            aspect_lists.extend(items)
    return (on_aspects or on_subject)[:limit]


#: A section named by its number and title in brackets ("clause 6 (Inventions and Proprietary
#: Information)"): rule "a section's name states nothing", the title is no statement of its subject
#: (a cap on liability that does not apply to claims under the confidentiality clause is no
#: confidentiality sentence).
_NAMED_SECTION = re.compile(
    r"\b(?:sections?|clauses?|articles?|paragraphs?)\s+\d+(?:\.\d+)*(?:\s*\([a-z0-9]{1,4}\))*\s*\([^()]{1,80}\)",
    _I,
)


#: Times a line recurs, its numbers aside, to be a page's running header or footer.
RUNNING = 3
#: Shortest sentence whose recurrences count as running text ("Page 2 of 7." alone is a line's).
RECURRING_CHARS = 40
_LINE = re.compile(r"[^\n]+")


def _shape(line: str) -> str:
    return " ".join(re.sub(r"\d+", "#", line).split()).lower()


def _without_running_text(text: str, sentences: Sequence[Span] = ()) -> str:
    """``text`` with its pages' running text blanked out (rule "a page's running text is no
    clause"): lines the contract repeats :data:`RUNNING` times or more, their numbers aside
    ("Confidential - Page 2 of 7"), are its headers and footers, whatever sentence the splitter
    joined them to; so is every occurrence of one of its ``sentences`` whose words recur as often
    (a filing's redaction legend, "Certain identified information has been excluded ...", inside
    the text of each page, alone or joined to the clause beside it). On the open-question bank's
    tune half such text was three of the eight sentences planned for a confidentiality question,
    and the legend restated read "Confidential information has been excluded". Offsets are kept:
    each blanked character becomes a space."""
    blanked = list(text)
    lines = [(match.start(), match.end(), _shape(match.group())) for match in _LINE.finditer(text)]
    counts = Counter(shape for _, _, shape in lines if shape)
    for start, end, shape in lines:
        if shape and counts[shape] >= RUNNING:
            blanked[start:end] = " " * (end - start)
    for start, end in _footer_tails(text, lines):
        blanked[start:end] = " " * (end - start)
    for words in {text[start:end].strip() for start, end in sentences}:
        if len(words) >= RECURRING_CHARS and text.count(words) >= RUNNING:
            at = text.find(words)
            while at >= 0:
                blanked[at : at + len(words)] = " " * len(words)
                at = text.find(words, at + len(words))
    return "".join(blanked)


#: A verb that makes words a clause's, not a page's ("The provisions of this Section 7 shall survive
#: ..." ends the sections of one contract, numbered up, and is no footer).
_STATING = re.compile(r"\b(?:shall|will|must|may|means?|agrees?|is|are|has|have)\b", re.I)
#: Words of a line's end read for a footer joined to it, at most.
TAIL_WORDS = 16
_WORD_AT = re.compile(r"\S+")


def _footer_tails(text: str, lines: Sequence[tuple[int, int, str]]) -> list[Span]:
    """The footers a page's text ends on (rule "a page's running text is no clause", joined): the
    longest run of a line's last words, :data:`RECURRING_CHARS` or more, that ends
    :data:`RUNNING` lines or more alike but for their numbers, one of which counts up from line to
    line (the page's). A filing's text joins "Confidential Page 1 of 7 Initials: CL MD Version
    Jan16_v1" to the last sentence of every page; as one line of its own it was blanked, joined it
    was planned for a confidentiality question with the signature block before it. A clause's
    words recurring at the end of three lines ("... within 30 days after written notice to the
    other party.") keep their own numbers, which do not count up line by line, and stay; so do
    words that state something (:data:`_STATING`) or open mid-sentence or on an item's marker."""
    tails: dict[str, list[tuple[Span, str]]] = {}
    for start, end, _ in lines:
        words = [m.span() for m in _WORD_AT.finditer(text, start, end)][-TAIL_WORDS:]
        for first in range(len(words)):
            span = (words[first][0], words[-1][1])
            if span[1] - span[0] < RECURRING_CHARS:
                break
            if text[span[0]].islower() or text[span[0]] == "(":
                continue  # a footer opens on its own words, not inside a sentence or an item
            tails.setdefault(_shape(text[span[0] : span[1]]), []).append((span, text[span[0] : span[1]]))
    found: dict[int, Span] = {}
    for run in tails.values():
        if len(run) >= RUNNING and not _STATING.search(run[0][1]) and _counts_up([w for _, w in sorted(run)]):
            for span, _ in run:
                if span[1] - span[0] > found.get(span[1], (0, 0))[1] - found.get(span[1], (0, 0))[0]:
                    found[span[1]] = span
    return list(found.values())


def _counts_up(tails: Sequence[str]) -> bool:
    """Whether some number of ``tails`` (alike but for their numbers, in document order) grows
    from each tail to the next."""
    numbers = [[int(n) for n in re.findall(r"\d+", tail)] for tail in tails]
    return any(all(a[i] < b[i] for a, b in pairwise(numbers)) for i in range(len(numbers[0])))


def _trimmed(span: Span, read: str) -> Span:
    """``span`` without the running text blanked at its ends (a redaction legend the splitter
    joined to the clause it precedes is not quoted with it)."""
    start, end = span
    while start < end and read[start].isspace():
        start += 1
    while end > start and read[end - 1].isspace():
        end -= 1
    return start, end


def _its_list(span: Span, text: str, tree: ClauseTree | None) -> list[Span]:
    """The items of the list ``span`` introduces, when it is a lead-in ("... do not apply to
    information that ...:" then its items (a) to (d)) that ends its clause's own text: the
    clause's sub-clauses, which the Researcher cites with it and no plan takes again."""
    if tree is None or not text[span[0] : span[1]].rstrip().endswith(":"):
        return []
    clause = tree.clause_of(tree.smallest_containing(span))
    if clause.children and not text[span[1] : clause.own_end].strip():
        return [(clause.own_end, clause.span[1])]
    return []
