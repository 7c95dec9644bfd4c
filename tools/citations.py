"""Deterministic verification of quotes against the contract text.

A quote is accepted only if it occurs in the contract: verbatim, or differing only in whitespace
and in OCR line-break hyphenation ("confi- dential" for "confidential"). The verified span is
always returned in the contract's own coordinates, so what the report shows is exactly
``text[start:end]``; nothing else (case, punctuation, paraphrase) is tolerated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clausewise.core.domain import Span

_BREAK_HYPHEN = re.compile(r"(?<=[A-Za-z])-\s+(?=[a-z])")


@dataclass(frozen=True)
class VerifiedQuote:
    span: Span
    text: str  # the contract's own text at ``span``
    exact: bool  # True when the quote matched verbatim


def _normalise(text: str) -> tuple[str, list[int]]:
    """Whitespace runs -> one space, line-break hyphens removed; with each kept char's offset."""
    out: list[str] = []
    positions: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        m = _BREAK_HYPHEN.match(text, i) if text[i] == "-" else None
        if m is not None:
            i = m.end()
            continue
        ch = text[i]
        if ch.isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            if out and out[-1] != " ":
                out.append(" ")
                positions.append(i)
            i = j
            continue
        out.append(ch)
        positions.append(i)
        i += 1
    return "".join(out), positions


class QuoteVerifier:
    """Finds quotes in one contract; build once per contract and reuse."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._normalised, self._positions = _normalise(text)

    def _closest(self, occurrences: list[int], hint: Span | None) -> int:
        if hint is None:
            return occurrences[0]
        return min(occurrences, key=lambda start: abs(start - hint[0]))

    @staticmethod
    def _find_all(haystack: str, needle: str, limit: int = 50) -> list[int]:
        found: list[int] = []
        start = haystack.find(needle)
        while start >= 0 and len(found) < limit:
            found.append(start)
            start = haystack.find(needle, start + 1)
        return found

    def verify(self, quote: str, hint: Span | None = None) -> VerifiedQuote | None:
        """The contract span of ``quote`` (nearest to ``hint`` when it occurs more than once).

        Quotation marks around the quote are the model's, unless the contract has them: a
        definition sentence begins with one ("“Affiliate” means ..."), and stripping it first
        would move the span one character off the text the source claims."""
        quote = quote.strip()
        for candidate in dict.fromkeys((quote, quote.strip('"“”').strip())):
            found = self._locate(candidate, hint)
            if found is not None:
                return found
        return None

    def _locate(self, quote: str, hint: Span | None) -> VerifiedQuote | None:
        if len(quote) < 3:
            return None
        if hint is not None and self.text[hint[0] : hint[1]] == quote:
            return VerifiedQuote(hint, quote, True)
        exact = self._find_all(self.text, quote)
        if exact:
            start = self._closest(exact, hint)
            return VerifiedQuote((start, start + len(quote)), quote, True)
        normalised_quote, _ = _normalise(quote)
        loose = self._find_all(self._normalised, normalised_quote.strip())
        if not loose:
            return None
        starts = [self._positions[i] for i in loose]
        chosen = loose[starts.index(self._closest(starts, hint))]
        start = self._positions[chosen]
        end = self._positions[chosen + len(normalised_quote.strip()) - 1] + 1
        return VerifiedQuote((start, end), self.text[start:end], False)

    def is_at(self, quote: str, span: Span) -> bool:
        """Whether ``quote`` is what the contract says at ``span`` (whitespace/hyphenation-tolerant)."""
        found = self.verify(quote, span)
        return found is not None and found.span == span


#: Words no phrase ends with: a quote ending with one stops in the middle of what it says.
DANGLING = frozenset(
    """a an the of to by for with and or nor in on at as from into upon under than that which who whom
    whose if unless until including between shall will may must can be is are was were been being not
    its their his her our your any each every such no this these those""".split()
)
#: A sentence's end after a quote's last word: a stop before white space or the text's end.
_SENTENCE_END = re.compile(r"[.;!?](?=[\"”')\]]?(?:\s|$))")
_LAST_WORD = re.compile(r"([A-Za-z]+)\W*$")


def last_word(text: str) -> str:
    """The last word of ``text`` as written, whatever punctuation follows it ("" when none)."""
    found = _LAST_WORD.search(text)
    return found.group(1) if found is not None else ""


#: Longest tail of its sentence a cut quote is extended by (one that stops further from its
#: sentence's end keeps its own end, widened to a whole word).
SENTENCE_TAIL_CHARS = 400


def whole_quote(text: str, span: Span) -> Span:
    """Rule "no sentence is cut off": ``span`` widened to whole words, and, when it was cut inside
    a word or ends with a word no phrase ends with (:data:`DANGLING`), to its sentence's stop
    within :data:`SENTENCE_TAIL_CHARS`. A quote verified by its words may stop where the passage
    the model read was cut ("... CLAIMS ASSERTED BY UNAFFIL", "... their reasonable best efforts
    to"): it is the contract's text, but shown, it says less than the sentence it breaks, or
    something else. A quote trimmed to the words that answer ("governed by the laws of England
    and Wales") stays as it is."""
    start, end = span
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    cut = end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    while end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    dangling = last_word(text[start:end]).lower() in DANGLING and text[start:end].rstrip()[-1:].isalpha()
    if not (cut or dangling):
        return start, end
    stop = _SENTENCE_END.search(text, end, min(len(text), end + SENTENCE_TAIL_CHARS))
    if stop is not None and "\n\n" not in text[end : stop.end()]:
        end = stop.end()
    return start, end


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def closest_sentence(text: str, within: Span, quote: str, min_overlap: float = 0.7) -> VerifiedQuote | None:
    """The sentence of ``text[within]`` that a near-miss quote came from, or None.

    Small models often quote a passage almost but not exactly (a dropped word, a changed
    inflection). Such a quote is never shown; instead, when at least ``min_overlap`` of its words
    (three or more) occur in one sentence of the cited passage, that sentence is shown: the
    contract's own text at its own offsets, marked not exact. Anything looser is rejected.
    """
    from tools.structure.sentences import sentence_spans

    wanted = _words(quote)
    if len(wanted) < 3:
        return None
    best: tuple[float, Span] | None = None
    for start, end in sentence_spans(text, within[0], within[1], min_chars=10):
        score = len(wanted & _words(text[start:end])) / len(wanted)
        if best is None or score > best[0]:
            best = (score, (start, end))
    if best is None or best[0] < min_overlap:
        return None
    start, end = best[1]
    return VerifiedQuote((start, end), text[start:end], False)


def sentence_stating(text: str, within: Span, phrase: str, min_words: int = 2) -> VerifiedQuote | None:
    """The first sentence of ``text[within]`` that states ``phrase`` word for word (case and
    whitespace aside), or None. A short answer ("England and Wales", "three (3) years") that a
    model gives without a quote is grounded where the passage says it; the sentence is the
    contract's own text at its own offsets, marked not exact (the model did not quote it)."""
    from tools.structure.sentences import sentence_spans

    wanted = " ".join(_WORD.findall(phrase.lower()))
    if len(wanted.split()) < min_words:
        return None
    for start, end in sentence_spans(text, within[0], within[1], min_chars=10):
        if f" {wanted} " in f" {' '.join(_WORD.findall(text[start:end].lower()))} ":
            return VerifiedQuote((start, end), text[start:end], False)
    return None
