"""Plain text and Markdown: decoding with encoding detection, and layout blocks from lines.

The decoded text is kept exactly (only newlines are unified, as Python's text mode does), so
offsets match what other tools compute on the same file (LegalBench-RAG spans, for example).
"""

from __future__ import annotations

import codecs
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from charset_normalizer import from_bytes

from clausewise.core.domain import Block, FileType, ParsedDocument
from clausewise.core.errors import EmptyDocument, UndecodableText
from tools.structure.labels import bare_number_before_capitals, opens_item, parse_label

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_MD_HEADING = re.compile(r"^#{1,6}\s")
_MD_TABLE = re.compile(r"^\|")
# Lines that open a block even without a blank line before them.
_BLOCK_OPENERS = re.compile(
    r"^(whereas\b|now,? therefore|in witness whereof|witnesseth|recitals\b|background\b)",
    re.IGNORECASE,
)


#: Bytes Windows-1252 leaves undefined: in a Windows-1252 file they are damage, not text.
_CP1252_UNDEFINED = frozenset(b"\x81\x8d\x8f\x90\x9d")
REPLACEMENT = "\ufffd"
#: The undefined bytes mapped to SUB (0x1a) before decoding, then SUB to U+FFFD (a file's own
#: SUB characters are control characters either way).
_UNDEFINED_TO_SUB = bytes(0x1A if byte in _CP1252_UNDEFINED else byte for byte in range(256))


@dataclass(frozen=True)
class Decoded:
    """Text read from bytes: the encoding it was read in, and the warnings a reader should see
    (bytes that were not text and became U+FFFD, an encoding that had to be guessed)."""

    text: str
    encoding: str
    warnings: tuple[str, ...] = ()
    replaced: int = 0


def decode_text(data: bytes, path: Path) -> str:
    """Bytes -> str (see :func:`decode_bytes`); the warnings are dropped."""
    return decode_bytes(data, path).text


def decode_bytes(data: bytes, path: Path) -> Decoded:
    """Bytes -> text with the encoding detected: a BOM, then UTF-8, then Windows-1252 (what
    non-UTF-8 English and Western European contracts are), then charset detection. A few bytes
    that are not text in the encoding found (a stray byte in UTF-8, Windows-1252's five undefined
    ones) become U+FFFD and the warning says how many and where, rather than the whole file being
    read in a wrong code page ("dķcrits Ó l'Annexe"); when most of the non-ASCII bytes would have
    to be replaced, or the data is binary, it is refused."""
    if data.startswith(codecs.BOM_UTF8):
        decoded = _replacing(data, "utf-8")  # the BOM stays, as U+FEFF: offsets are the file's own
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        decoded = _replacing(data, "utf-16")
    else:
        decoded = _utf8(data) or _windows_1252(data) or _detected(data, path)
    text = decoded.text
    if len(_CONTROL.findall(text[:20000])) > 0.01 * min(len(text), 20000) + 2:
        raise UndecodableText(
            "the file looks binary (many control characters), not text",
            hint="export the contract as PDF, DOCX or UTF-8 text",
            path=path,
        )
    replaced = decoded.replaced
    foreign = sum(1 for byte in data if byte >= 0x80)
    if replaced > max(8, foreign // 2):
        raise UndecodableText(
            f"{replaced:,} of its {foreign:,} non-ASCII bytes are not text in any encoding we could detect",
            hint="save the file as UTF-8 text, or export it as PDF or DOCX",
            path=path,
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    warnings = list(decoded.warnings)
    if replaced > 0:
        lines = sorted({text.count("\n", 0, i) + 1 for i, ch in enumerate(text) if ch == REPLACEMENT})
        shown = ", ".join(map(str, lines[:10])) + (" ..." if len(lines) > 10 else "")
        warnings.append(
            f"{replaced} byte(s) were not text in {decoded.encoding} and were replaced by "
            f"'{REPLACEMENT}' (line(s) {shown}): check those places against the original"
        )
    return Decoded(text, decoded.encoding, tuple(warnings), replaced)


def _replacing(data: bytes, encoding: str) -> Decoded:
    """``data`` in ``encoding``, what is not text in it replaced (and counted: a U+FFFD the file
    itself holds is text, not a replacement)."""
    text = data.decode(encoding, errors="replace")
    own = data.decode(encoding, errors="ignore").count(REPLACEMENT)
    return Decoded(text, encoding, replaced=text.count(REPLACEMENT) - own)


def _utf8(data: bytes) -> Decoded | None:
    """UTF-8, strictly; or UTF-8 with a few damaged bytes (its multi-byte characters far
    outnumber the bytes that are not UTF-8), those replaced."""
    try:
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    decoded = _replacing(data, "utf-8")
    good = sum(1 for ch in decoded.text if ord(ch) >= 0x80) - decoded.replaced
    return decoded if good >= 4 * decoded.replaced else None


def _windows_1252(data: bytes) -> Decoded | None:
    """Windows-1252 (a superset of Latin-1 for text), its undefined bytes replaced; accepted
    unless the result is mostly accented letters (then it is mojibake of another code page,
    e.g. Cyrillic, and detection decides)."""
    undefined = sum(data.count(bytes((byte,))) for byte in _CP1252_UNDEFINED)
    cleaned = data.translate(_UNDEFINED_TO_SUB) if undefined else data
    text = cleaned.decode("cp1252").replace("\x1a", REPLACEMENT) if undefined else cleaned.decode("cp1252")
    letters = [ch for ch in text if ch.isalpha()]
    accented = sum(1 for ch in letters if not ch.isascii())
    if not letters or accented > 0.1 * len(letters):
        return None
    return Decoded(text, "Windows-1252", replaced=undefined)


def _detected(data: bytes, path: Path) -> Decoded:
    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        raise UndecodableText(
            "the bytes are not text in any encoding we could detect",
            hint="save the file as UTF-8 text, or export it as PDF or DOCX",
            path=path,
        )
    warning = (
        f"the encoding was detected as {best.encoding}: check that accented letters read right, "
        "or save the file as UTF-8"
    )
    return Decoded(str(best), best.encoding, (warning,))


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for i, ch in enumerate(text):
        if ch in "\n\f":
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(text)))
    return spans


def _opens_block(previous: str, line: str, markdown: bool) -> bool:
    if opens_item(previous, line) or _BLOCK_OPENERS.match(line):
        return True
    return markdown and bool(_MD_HEADING.match(line) or _MD_TABLE.match(line))


def _indent(raw_line: str) -> float:
    expanded = raw_line.expandtabs(4)
    return float(len(expanded) - len(expanded.lstrip(" ")))


def line_blocks(text: str, markdown: bool = False) -> list[Block]:
    """Group lines into paragraph blocks.

    A blank line always ends a block. In hard-wrapped text (most lines near one width), a line
    continues the previous block unless the previous line stopped short or this line starts a
    label, heading or recital marker; in unwrapped text every line is its own block.
    """
    spans = _line_spans(text)
    lengths = [e - s for s, e in spans if text[s:e].strip()]
    if not lengths:
        return []
    wrap_width = statistics.quantiles(lengths, n=10)[-1] if len(lengths) >= 10 else max(lengths)
    hard_wrapped = wrap_width <= 130 and statistics.median(lengths) >= 0.5 * wrap_width
    blocks: list[Block] = []
    current: list[int] | None = None  # [start, end, x0, gap_before]
    blank_run = 0
    prev_len = 0
    prev_text = ""
    for s, e in spans:
        raw = text[s:e]
        stripped = raw.strip()
        if not stripped:
            blank_run += 1
            if current:
                blocks.append(Block(start=current[0], end=current[1], x0=current[2], gap_before=current[3]))
                current = None
            continue
        first = s + (len(raw) - len(raw.lstrip()))
        last = s + len(raw.rstrip())
        continues = (
            current is not None
            and hard_wrapped
            and prev_len >= 0.75 * wrap_width
            and not _opens_block(prev_text, stripped, markdown)
        )
        if continues and current is not None:
            current[1] = last
        else:
            if current:
                blocks.append(Block(start=current[0], end=current[1], x0=current[2], gap_before=current[3]))
            current = [first, last, _indent(raw), blank_run]
        prev_len = len(raw.rstrip())
        prev_text = stripped
        blank_run = 0
    if current:
        blocks.append(Block(start=current[0], end=current[1], x0=current[2], gap_before=current[3]))
    return [piece for block in blocks for piece in _split_flattened(text, block)]


_WIDE_GAP = re.compile(r"[ \t\u00a0\u202f]{3,}")
_TERMINAL_BEFORE = re.compile(r"[.:;?!\"”’)\]]$")


#: A piece this long before a gap is a wrapped line of text, not a heading set apart.
_WRAPPED_LINE_CHARS = 40


def _wrapped_line(before: str, after: str) -> bool:
    """A hard-wrapped line whose line break became a wide gap: "... IN NO EVENT WILL EITHER
    [gap] PARTY BE LIABLE ...", "... set forth in this [gap] Section 4.1(a) with respect to ...".
    The text before is as long as a line and stops mid-sentence, and the text after is not a
    number or a label (unless a reference running on); a short piece ("RECITALS", "TERMS AND
    CONDITIONS") is a heading."""
    if len(before) < _WRAPPED_LINE_CHARS or after[:1].isdigit():
        return False  # a heading, or a number that may start a section ("2 Research ...", "2.1 ...")
    label = parse_label(after)
    if label is None:
        return True
    # "Section 4.1(a) with respect to ...": a reference running on; "Section 4.4. Grant ..." a heading
    return bool(label.keyword) and after[label.end :].lstrip()[:1].islower()


def _is_bare_label(piece: str, following: str, opens: bool) -> bool:
    """ "1.", "A.", "(a)", "Section 2.3", or a bare "14" before an all-caps heading: a number set
    off from its text by a wide gap ("A.       AUTHORITY OF AGENCY", "14     GENERAL PROVISIONS"),
    which belongs with the text it numbers. A bare number counts only where a paragraph opens
    (``opens``: after a sentence end or at the block start); "2    3    CONFIDENTIAL" is a page
    number and a running header."""
    label = parse_label(f"{piece} ")  # "A." is a label only before a space
    if label is not None and label.end >= len(piece):
        return True
    return opens and piece.isdigit() and bare_number_before_capitals(f"{piece} {following}")


def _split_flattened(text: str, block: Block) -> list[Block]:
    """Split a block at runs of 3+ spaces that separate paragraphs.

    Text extracted from PDFs by other tools (EDGAR filings, LegalBench-RAG's corpus) often puts a
    whole page on one line, with paragraphs, headings and list items separated only by wide
    gaps. A gap is a boundary unless a sentence visibly runs on across it (no terminal
    punctuation before, and a lowercase word or a wrapped line after: :func:`_wrapped_line`) or it
    only sets a label off from its text (:func:`_is_bare_label`).
    """
    cuts = [block.start]
    for m in _WIDE_GAP.finditer(text, block.start, block.end):
        before = text[cuts[-1] : m.start()].rstrip()
        after = text[m.end() : m.end() + 40]
        if not before or m.end() >= block.end:
            continue
        open_ended = not _TERMINAL_BEFORE.search(before)
        runs_on = open_ended and (after[:1].islower() or _wrapped_line(before, after))
        piece_opens = cuts[-1] == block.start or bool(
            _TERMINAL_BEFORE.search(text[block.start : cuts[-1]].rstrip())
        )
        if not runs_on and not _is_bare_label(before, after, piece_opens):
            cuts.append(m.end())
    if len(cuts) == 1:
        return [block]
    pieces = []
    for i, start in enumerate(cuts):
        end = cuts[i + 1] if i + 1 < len(cuts) else block.end
        end = start + len(text[start:end].rstrip())
        pieces.append(
            Block(
                start=start,
                end=end,
                x0=block.x0,
                gap_before=block.gap_before if i == 0 else 0.0,
                page=block.page,
                bold=block.bold,
                font_size=block.font_size,
            )
        )
    return pieces


def document_from_text(text: str, source_name: str, file_type: FileType = FileType.TEXT) -> ParsedDocument:
    """A parsed document for text already in memory (benchmarks, tests, pasted text)."""
    return ParsedDocument.unpaged(
        source_name, file_type, text, line_blocks(text, markdown=file_type == FileType.MARKDOWN)
    )


def parse_text_file(path: Path, file_type: FileType) -> ParsedDocument:
    decoded = decode_bytes(path.read_bytes(), path)
    if not decoded.text.strip():
        raise EmptyDocument("the file contains only whitespace", hint="check the export", path=path)
    document = document_from_text(decoded.text, path.name, file_type)
    document.warnings.extend(decoded.warnings)
    return document
