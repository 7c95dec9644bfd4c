"""What each layout block is: label, title, heading, recital, signature, schedule or TOC entry.

The tree builder only reads these facts; keeping them apart makes both halves testable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clausewise.core.domain import Block
from tools.structure.labels import Label, parse_heading_number, parse_label, roman_section

_SMALL_WORDS = {
    "and",
    "or",
    "of",
    "the",
    "a",
    "an",
    "to",
    "in",
    "on",
    "by",
    "for",
    "with",
    "at",
    "as",
    "its",
    "upon",
    "from",
    "into",
    "under",
    "than",
    "vs",
    "nor",
    "per",
    "not",
    "etc",
    "&",
}
_RECITALS_START = re.compile(
    r"^(?:whereas\b|recitals?\b|background\b|witnesseth\b|preliminary statements?\b|premises\b)",
    re.IGNORECASE,
)
_RECITALS_END = re.compile(
    r"^(?:now,?\s+therefore|it is (?:hereby )?agreed|(?:accordingly|therefore),? the parties)"
    r"|agree(?:s)? as follows|hereby agree",
    re.IGNORECASE,
)
_SIGNATURE_START = re.compile(
    r"^(?:in witness whereof|\[?\s*signature pages? (?:follows?|to follow)|\[?\s*remainder of (?:this )?page "
    r"(?:intentionally )?left blank|signatures?:?$|agreed and accepted)",
    re.IGNORECASE,
)
_SIGNATURE_LINE = re.compile(r"^(?:by|name|title|date|signature|its)\s*:|/s/", re.IGNORECASE)
#: "TABLE OF CONTENTS", "Contents": not "Contents are dubbed and subtitled ..." (a sentence)
_TOC_HEADING = re.compile(
    r"^(?:table of contents?|contents|index of defined terms|index)\b(?!\s+(?-i:[a-z]))", re.IGNORECASE
)
# a page number or separator; "12." alone is a section number printed apart from its heading
_FURNITURE = re.compile(
    r"^(?!\d{1,3}\.$)(?:[-–—_=*.\s]{3,}|(?:page\s*)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlc]{1,7})\s*[-–—)\]]?(?:\s*(?:of|/)\s*\d{1,4})?\.?)$",
    re.IGNORECASE,
)
#: "2" + 50 spaces + "CONFIDENTIAL": a page number and a running header (or footer) printed on one
#: line, far apart; a heading sits a few spaces from its number ("14     GENERAL PROVISIONS"), and
#: "15" + 30 spaces + "EXHIBIT A" is a page number above an exhibit's first line, which stays
_PAGE_NUMBER_WITH_RUNNING_TEXT = re.compile(
    r"^\d{1,4}[ \t\u00a0]{20,}(?!(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT|ARTICLE|SECTION|PART)\b)"
    r"[^\s\d].{0,60}$",
    re.IGNORECASE,
)
#: "GOOSEHEAD INSURANCE AGENCY, LLC FRANCHISE AGREEMENT EXHIBIT B GUARANTEE, ...", "CONFIDENTIAL
#: EXECUTION COPY   EXHIBIT A  LIST OF PATENTS": an exhibit heading printed behind the running
#: title of its page, on one line; the title after it is short (a reference in capitals prose,
#: "... LISTED IN EXHIBIT C OR YOUR PUBLIC LIBRARY FOR SOURCES ...", runs on)
_RUN_IN_SCHEDULE = re.compile(
    r"^(?P<running>(?:[A-Z][A-Z0-9,.&'’-]*[ \t]+){1,10})"
    r"(?=(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT)[ \t]+(?:[A-Z]-\d{1,3}|[A-Z]|\d{1,3}(?:\.\d{1,3})?)\b"
    r"[ \t]+[A-Z][^\n]*$)"
)
_RUN_IN_TITLE_WORDS = 20
_REFERRING_CAPITALS = frozenset("IN SEE TO OF UNDER AND OR THE PER WITH BY ON AS THIS".split())
#: "3 2.      GRANT", "2 2.  TERM": a page number printed on the line of the next section's heading
_PAGE_NUMBER_BEFORE_LABEL = re.compile(r"^\d{1,3}[ \t]+(?=\d{1,3}(?:\.\d{1,3})*\.(?:[ \t]+[A-Z]|$))")
_TOC_LABELS = re.compile(r"\b(?:Section|SECTION|Article|ARTICLE)\s+[\dIVXL]+(?:\.\d+)*\.?\s")
#: ". . . . . . . 23": a dot leader and a page number, the mark of a contents entry even when the
#: next entry's number ends the line ("TERM AND RENEWAL . . . . . .3 III."); several in one block
#: are a contents page flattened onto one line
_DOT_LEADER_ENTRY = re.compile(r"(?:\.[ \t]?){4,}[ \t]*(?:\d{1,3}|[ivxlc]{1,6})\b", re.IGNORECASE)
_FLATTENED_CONTENTS_ENTRIES = 3
_CONTENTS_ENTRY_CHARS = 200
_ENDS_OPEN = re.compile(r"[^.:;?!\"”’)\]]$|\(\d{1,3}\)$")
#: "... grants Distributor only a license to resell the": a word or comma no sentence ends on, or a
#: number spelled out in figures ("three (3)"), at the end of a sentence of some length (a table's
#: cells, "Mix of accessions" then "329", are short): what a paragraph cut by a page break ends with
_ENDS_MID_SENTENCE = re.compile(r"(?:\b[a-z][a-z’'-]*|,|\(\d{1,3}\))$")
_CUT_SENTENCE_WORDS = 12
#: the rest of a cut sentence starts with a word, a quotation or a parenthesis, not a figure
_RESUMES_SENTENCE = re.compile(r"^[\"“(]?[A-Za-z]")
_TOC_ENTRY_END = re.compile(
    r"(?:\.{3,}\s*|\s)(?:\d{1,3}|[ivxlc]{1,6})$|\s\d+(?:\.\d+)*(?:\([a-z0-9]{1,4}\))*$",
    re.IGNORECASE,
)
_MD_HEADING = re.compile(r"^(#{1,6})\s+")
_DEFINITION = re.compile(
    r"^[\"“”']([^\"“”']{1,80})[\"“”']\s*(?:\([^)]{0,60}\)\s*)?,?\s*(?:shall\s+)?"
    r"(?:means?|mean[s]?:|has the meaning|shall have the meaning|have the meaning|refers? to|includes?"
    r"|is defined)",
    re.IGNORECASE,
)
_TITLE_RUN = re.compile(r"^(.{2,90}?)(?:\.\s+|:\s+|\s+[-–—]\s+)(?=\S)")


@dataclass
class BlockFacts:
    index: int
    start: int
    end: int
    text: str
    x0: float
    label: Label | None
    title: str
    body_start: int  # absolute offset where the body starts (after label and title)
    heading: bool  # an unlabelled heading ("CONFIDENTIALITY", "## Term")
    heading_level: int  # markdown level, 0 if none
    recitals_start: bool
    recitals_end: bool
    signature_start: bool
    signature_line: bool
    schedule_start: bool
    toc_heading: bool
    toc_entry: bool
    defined_term: str | None
    furniture: bool  # a page number or separator line left in the text by an extraction
    continuation: bool  # the rest of the previous paragraph, cut by a page break

    @property
    def words(self) -> int:
        return len(self.text.split())


def _letters(text: str) -> list[str]:
    return [ch for ch in text if ch.isalpha()]


def is_all_caps(text: str) -> bool:
    letters = _letters(text)
    return len(letters) >= 2 and sum(ch.isupper() for ch in letters) >= 0.85 * len(letters)


def is_title_case(text: str) -> bool:
    words = [w.strip("\"“”'(),.;:") for w in text.split()]
    words = [w for w in words if w and w[0].isalpha()]
    if not words:
        return False
    significant = [w for w in words if w.lower() not in _SMALL_WORDS]
    return bool(significant) and all(w[0].isupper() for w in significant)


def _looks_like_heading_text(text: str, block: Block) -> bool:
    """ALL CAPS short lines; bold short phrases; short Title Case lines set apart by a blank line."""
    words = text.split()
    if not words or len(words) > 14 or len(text) > 120:
        return False
    if is_all_caps(text):
        return True
    if text.rstrip().endswith((".", ";", ",")) or len(words) > 10:
        return False
    return block.bold or (is_title_case(text) and len(words) <= 6 and block.gap_before >= 0.5)


def split_title(rest: str, bold: bool) -> str:
    """The heading part of a labelled block's remaining text, '' if it has none.

    "LAUNCH TIMING. Each party shall..." -> "LAUNCH TIMING"; "Term and Termination" -> all of it;
    "The Company shall pay..." -> "".
    """
    stripped = rest.strip()
    if not stripped:
        return ""
    words = stripped.split()
    short = len(words) <= 12 and len(stripped) <= 110
    one_phrase = not re.search(r"[.;]\s+\S", stripped)  # not a sentence followed by more text
    if short and one_phrase and (is_all_caps(stripped) or is_title_case(stripped.rstrip(".:")) or bold):
        return stripped.rstrip(" .:")
    match = _TITLE_RUN.match(stripped)
    if match:
        candidate = match.group(1).strip()
        if len(candidate.split()) <= 10 and (
            is_all_caps(candidate) or is_title_case(candidate) or _is_sentence_case_heading(candidate)
        ):
            return candidate
    return ""


_VERBS = re.compile(
    r"\b(?:is|are|was|were|be|shall|may|will|must|has|have|had|does|do|can|should|would|means?|includes?)\b",
    re.IGNORECASE,
)


def _is_sentence_case_heading(candidate: str) -> bool:
    """ "Governing law", "Late payment": short, capitalised, no verb (so not a sentence)."""
    words = candidate.split()
    return (
        1 <= len(words) <= 4
        and candidate[:1].isupper()
        and not _VERBS.search(candidate)
        and not any(ch.isdigit() for ch in candidate)
    )


_CAPS_TITLE_START = re.compile(r"^[A-Z][A-Z'’&-]+(?:\s+[A-Z][A-Z'’&-]*)*\b(?![a-z])")


def _is_run_on_schedule_heading(label: Label, after_label: str) -> bool:
    """ "ATTACHMENT A ACKNOWLEDGEMENT OF SUPPORT The following outlines ...": an all-caps exhibit
    heading whose all-caps title runs on into the exhibit's text on one line (a page flattened by
    a text export). A reference in running text is not in capitals ("Exhibit A attached hereto")."""
    if not is_all_caps(label.raw):
        return False
    title = _CAPS_TITLE_START.match(after_label)
    return title is not None and len(title.group(0)) >= 4


#: A short line printed this many times is a running header or footer.
_RUNNING_REPEATS = 3


def _running_key(stripped: str) -> str | None:
    """The key under which a short line counts as printed again, or None for a line with a
    section or list number (never a running line). Its words with every number masked, so "Page 3
    of 12" and "Page 4 of 12" are one footer; an exhibit's name may be a header ("Exhibit 10.38" at
    the top of every page). Rule "numbered exhibits are a sequence, not a header": an exhibit's
    heading keeps its number ("Annex 1", "Annex 2", "Annex 3" are three headings, as "Exhibit A",
    "Exhibit B" always were; "Exhibit 10.38" on every page is still one header)."""
    label = parse_label(stripped)
    if label is not None and label.keyword != "schedule":
        return None
    squashed = re.sub(r"\s+", " ", stripped.lower())
    return squashed if label is not None else re.sub(r"\d+", "#", squashed)


def running_lines(text: str, blocks: list[Block]) -> set[str]:
    """Keys of the short unnumbered lines printed again and again: running headers and footers
    left in a text export ("Source: ACME CORP, 10-K, 3/28/2019" on every page, "Confidential",
    "Page 3 of 12", the exhibit number "Exhibit 10.38" at the top of every page). Read as headings
    or exhibits, they file every page under themselves. Signature lines ("By: ____") repeat for a
    reason and are kept.

    A longer paragraph printed again and again is a legend of the filing, not a clause ("[ * ] =
    Certain confidential information contained in this document, marked by brackets, has been
    omitted and filed separately ..." at the foot of every page): it would end a contents page or
    a list where it falls. Recitals and signature paragraphs repeated by attached forms ("NOW
    THEREFORE ...", "WHEREAS ...", "IN WITNESS WHEREOF ...") open regions and are kept."""
    counts: dict[str, int] = {}
    for block in blocks:
        stripped = text[block.start : block.end].strip()
        short = len(stripped) <= 120 and len(stripped.split()) <= 15
        key = _running_key(stripped)
        if (
            not stripped
            or key is None
            or _SIGNATURE_LINE.search(stripped[:40])
            or (
                not short
                and (
                    _RECITALS_START.match(stripped)
                    or _RECITALS_END.search(stripped[:200])
                    or _SIGNATURE_START.match(stripped)
                )
            )
        ):
            continue
        counts[key] = counts.get(key, 0) + 1
    return {key for key, count in counts.items() if count >= _RUNNING_REPEATS}


def run_in_schedule_start(first_line: str) -> int:
    """Where an exhibit heading printed behind its page's running title starts in ``first_line``
    (see ``_RUN_IN_SCHEDULE``), or 0 when the line has none."""
    m = _RUN_IN_SCHEDULE.match(first_line)
    if m is None or m.group("running").split()[-1] in _REFERRING_CAPITALS:
        return 0
    return m.end("running") if len(first_line[m.end("running") :].split()) <= _RUN_IN_TITLE_WORDS else 0


def analyze_blocks(text: str, blocks: list[Block]) -> list[BlockFacts]:
    facts: list[BlockFacts] = []
    running = running_lines(text, blocks)
    previous_text = ""
    previous_page = blocks[0].page if blocks else 1
    page_break = False  # furniture or a new page since the last paragraph
    for index, block in enumerate(blocks):
        raw = text[block.start : block.end]
        stripped = raw.strip()
        start = block.start + (len(raw) - len(raw.lstrip()))
        md = _MD_HEADING.match(stripped)
        heading_level = len(md.group(1)) if md else 0
        body_text = stripped[md.end() :] if md else stripped
        offset = start + (md.end() if md else 0)
        label = parse_label(body_text) or parse_heading_number(body_text)
        if label is None and not md and (page := _PAGE_NUMBER_BEFORE_LABEL.match(body_text)):
            offset += page.end()  # "3 2.      GRANT": the page number stays in the block
            body_text = body_text[page.end() :]
            label = parse_label(body_text)
        if label is None and not md and (cut := run_in_schedule_start(body_text.split("\n", 1)[0])):
            offset += cut  # the running title stays in the block; the exhibit heading starts here
            body_text = body_text[cut:]
            label = parse_label(body_text)
        if label is not None and label.readings[0].style == "bullet" and heading_level:
            label = None
        title = ""
        body_start = offset
        if label is not None:
            rest = body_text[label.end :]
            title = split_title(rest, block.bold)
            lead = len(rest) - len(rest.lstrip())
            body_start = offset + label.end + lead
            if title:
                title_pos = rest.find(title)
                body_start = offset + label.end + title_pos + len(title)
                trailing = re.match(r"[\s.:\-–—]*", text[body_start : block.end])
                body_start += trailing.end() if trailing else 0
            label = roman_section(label, title)
        heading = bool(md) or (label is None and _looks_like_heading_text(stripped, block))
        if md and label is None:
            title = body_text.strip()
            body_start = block.end
        elif heading:
            title = stripped.rstrip(" .:")
            body_start = block.end
        short = len(stripped.split()) <= 15
        after_label = body_text[label.end :].strip() if label is not None else ""
        schedule_start = (
            label is not None
            and label.keyword == "schedule"
            and (
                (short and (is_all_caps(label.raw) or len(stripped.split()) <= 6 or block.bold))
                or _is_run_on_schedule_heading(label, after_label)
            )
            and not (short and after_label and _TOC_ENTRY_END.search(after_label))
        )
        defined = (
            _DEFINITION.match(text[body_start : block.end].lstrip())
            if label is not None
            else _DEFINITION.match(stripped)
        )
        facts.append(
            BlockFacts(
                index=index,
                start=start,
                end=block.end,
                text=stripped,
                x0=block.x0,
                label=label,
                title=title,
                body_start=min(body_start, block.end),
                heading=heading,
                heading_level=heading_level,
                recitals_start=bool(_RECITALS_START.match(body_text)),
                recitals_end=bool(_RECITALS_END.search(stripped[:200])),
                signature_start=bool(_SIGNATURE_START.match(stripped)),
                signature_line=bool(_SIGNATURE_LINE.search(stripped[:40])),
                schedule_start=schedule_start,
                toc_heading=bool(_TOC_HEADING.match(stripped)),
                toc_entry=(len(stripped) <= 160 and bool(_TOC_ENTRY_END.search(stripped)))
                or len(_TOC_LABELS.findall(stripped)) >= 2
                or len(_DOT_LEADER_ENTRY.findall(stripped)) >= _FLATTENED_CONTENTS_ENTRIES
                or (len(stripped) <= _CONTENTS_ENTRY_CHARS and bool(_DOT_LEADER_ENTRY.search(stripped))),
                defined_term=defined.group(1).strip() if defined else None,
                furniture=bool(_FURNITURE.match(stripped) or _PAGE_NUMBER_WITH_RUNNING_TEXT.match(stripped))
                or _running_key(stripped) in running,
                continuation=(
                    label is None
                    and not md
                    and (
                        (stripped[:1].islower() and bool(_ENDS_OPEN.search(previous_text)))
                        or (
                            (page_break or block.page != previous_page)
                            and not heading
                            and bool(_RESUMES_SENTENCE.match(stripped))
                            and bool(_ENDS_MID_SENTENCE.search(previous_text))
                            and len(previous_text.split()) >= _CUT_SENTENCE_WORDS
                        )
                    )
                ),
            )
        )
        if facts[-1].furniture:
            page_break = True
        else:
            previous_text, page_break = stripped, False
        previous_page = block.page
    return facts
