"""Compare two texts of a contract clause by clause, through their clause trees.

A line diff of two contract versions drowns a lawyer in noise: a clause inserted renumbers every
clause after it, a moved clause reads as struck here and inserted there. So the texts are cut
into the clause tree's units (each node's own text: its label, title and words up to its first
child), and units are matched by their words with the number left out: first the same words,
then the most similar clause left (:data:`MIN_SIMILARITY`). A matched clause whose number alone
changed is renumbered, not changed; one whose order among the matched clauses changed is moved
(the longest run kept in order stays put); the words of a matched clause are compared word by
word, and a replacement whose both sides are values (durations, dates, amounts, numbers) is a
value change. Clauses left unmatched were inserted or struck.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from clausewise.core.comparison import ChangeKind, Comparison, TextChange, TextReference, WordRound
from clausewise.core.config import StructureSettings
from clausewise.core.domain import ClauseTree, NodeKind, ParsedDocument, Span, TextVersion, TrackedText
from clausewise.core.errors import NoTrackedChanges
from indexes.store import ContractIndex
from tools.retrieval.spans import overlap
from tools.structure.tree_builder import build_tree
from tools.values import find_values, word_number

#: Rule "similar clause": a clause left without an exact twin is the same clause edited when at
#: least this share of its words (difflib's ratio over words) is kept. A negotiation round edits a
#: clause by a value, a phrase or a proviso and keeps most of its words; a different clause of the
#: same contract shares little more than its boilerplate.
MIN_SIMILARITY = 0.5
#: A number printed at a part's start: "Section 12.4.", "ARTICLE IV", "12.4(a)", "(ii)", "b)".
_PRINTED_NUMBER = re.compile(
    r"(?:(?:section|article|clause|part|schedule)\s+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*(?:\([a-z0-9]{1,4}\))*\.?|[ivxlc]{1,7}\.|\(?[a-z0-9]{1,4}\)|[a-z]\.)\s+",
    re.IGNORECASE,
)
_WORD = re.compile(r"\S+")
_NUMBERISH = re.compile(r"^[(\[]?[$€£]?\d[\d,.]*%?[)\].,;:]?$|^[(\[]?\d+[)\]]$")


@dataclass(frozen=True)
class Unit:
    """One clause's own text: the node, where its text starts and ends, where its words start
    after its printed number, and those words with spaces collapsed."""

    node_id: str
    label: str
    start: int
    body: int
    end: int
    words: str


def _is_unit(tree: ClauseTree, node_id: str) -> bool:
    """A part of the text compared as one: every node of the tree but a sentence. Sentences are
    cut as their words read, which an edit changes; paragraphs, list items and clauses are cut at
    line starts and numbers, which an edit of their words leaves in place."""
    return tree.nodes[node_id].kind != NodeKind.SENTENCE


def _number_end(text: str, start: int, end: int) -> int:
    """Where a unit's words start after the number printed at its start ("12.4", "(a)", "Section
    3.", "IV."), if any: matched without it, a clause moved or renumbered keeps its words even
    where the tree reads its number differently."""
    found = _PRINTED_NUMBER.match(text, start, end)
    return found.end() if found else start


def clause_units(text: str, tree: ClauseTree) -> list[Unit]:
    """The parts of a text in order, each as its own text: from its start to its first part
    (label, title, lead-in and sentences)."""
    units: list[Unit] = []
    for node in tree.walk():
        if not _is_unit(tree, node.id):
            continue
        end = next(
            (d.start for d in tree.walk(node.id) if d.id != node.id and _is_unit(tree, d.id)),
            node.end,
        )
        start = node.start
        while end > start and text[end - 1].isspace():
            end -= 1
        while start < end and text[start].isspace():
            start += 1
        if start >= end:
            continue
        body = _number_end(text, start, end)
        words = " ".join(text[body:end].split())
        if words:
            units.append(Unit(node.id, node.label, start, body, end, words))
    return units


def _matched(before: Sequence[Unit], after: Sequence[Unit], min_similarity: float) -> dict[int, int]:
    """Units of the text before matched to units of the text after: the same words first (in
    order), then, greedily, the most similar pair left (ties to the nearer position)."""
    pairs: dict[int, int] = {}
    waiting: dict[str, deque[int]] = defaultdict(deque)
    for j, unit in enumerate(after):
        waiting[unit.words].append(j)
    for i, unit in enumerate(before):
        if waiting[unit.words]:
            pairs[i] = waiting[unit.words].popleft()
    taken = set(pairs.values())
    left_before = [i for i in range(len(before)) if i not in pairs]
    left_after = [j for j in range(len(after)) if j not in taken]
    candidates: list[tuple[float, float, int, int]] = []
    for i in left_before:
        words_before = before[i].words.split()
        for j in left_after:
            matcher = SequenceMatcher(None, words_before, after[j].words.split(), autojunk=False)
            if matcher.real_quick_ratio() < min_similarity or matcher.quick_ratio() < min_similarity:
                continue
            ratio = matcher.ratio()
            if ratio >= min_similarity:
                distance = abs(i / max(len(before), 1) - j / max(len(after), 1))
                candidates.append((ratio, -distance, i, j))
    for _, _, i, j in sorted(candidates, reverse=True):
        if i not in pairs and j not in taken:
            pairs[i] = j
            taken.add(j)
    return pairs


def _kept_in_order(pairs: dict[int, int]) -> set[int]:
    """The units before whose matches keep their order: the longest increasing run of the text
    after's positions (patience sorting); the rest moved."""
    order = sorted(pairs)
    tails: list[int] = []
    tail_at: list[int] = []
    previous: dict[int, int | None] = {}
    for i in order:
        j = pairs[i]
        low = bisect.bisect_left(tails, j)
        previous[i] = tail_at[low - 1] if low else None
        if low == len(tails):
            tails.append(j)
            tail_at.append(i)
        else:
            tails[low], tail_at[low] = j, i
    kept: set[int] = set()
    current = tail_at[-1] if tail_at else None
    while current is not None:
        kept.add(current)
        current = previous[current]
    return kept


def _is_numberish(words: Sequence[str]) -> bool:
    return bool(words) and all(
        _NUMBERISH.match(w) or word_number(w.strip("(),.;:")) is not None for w in words
    )


class _Texts:
    """The two texts compared, and the values a clause of either states."""

    def __init__(self, before: str, after: str) -> None:
        self.before, self.after = before, after

    def values(self, text: str, unit: Unit) -> list[tuple[str, str, Span]]:
        return [
            (m.type, m.normalized, (unit.start + m.span[0], unit.start + m.span[1]))
            for m in find_values(text[unit.start : unit.end])
        ]


def _value_change(texts: _Texts, a: Unit, b: Unit, span_a: Span, span_b: Span) -> tuple[str, str] | None:
    """The values before and after when a replacement changes a stated value (both sides inside
    values of one type that differ), else None."""
    found_a = [v for v in texts.values(texts.before, a) if overlap(v[2], span_a)]
    found_b = [v for v in texts.values(texts.after, b) if overlap(v[2], span_b)]
    for kind_a, value_a, _ in found_a:
        for kind_b, value_b, _ in found_b:
            if kind_a == kind_b and value_a != value_b:
                return value_a, value_b
    return None


def _word_changes(texts: _Texts, a: Unit, b: Unit) -> list[TextChange]:
    """The word-level changes inside one matched clause."""
    tokens_a = [(m.start() + a.body, m.end() + a.body) for m in _WORD.finditer(texts.before[a.body : a.end])]
    tokens_b = [(m.start() + b.body, m.end() + b.body) for m in _WORD.finditer(texts.after[b.body : b.end])]
    words_a = [texts.before[s:e] for s, e in tokens_a]
    words_b = [texts.after[s:e] for s, e in tokens_b]
    changes: list[TextChange] = []
    matcher = SequenceMatcher(None, words_a, words_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        span_a = _token_span(tokens_a, i1, i2, a.end)
        span_b = _token_span(tokens_b, j1, j2, b.end)
        kind: ChangeKind = {"insert": "words_inserted", "delete": "words_deleted"}.get(tag, "words_replaced")  # type: ignore[assignment]
        values = ("", "")
        if tag == "insert" and _whole_lines(texts.after, span_b):
            kind = "clause_inserted"
        elif tag == "delete" and _whole_lines(texts.before, span_a):
            kind = "clause_struck"
        if tag == "replace":
            found = _value_change(texts, a, b, span_a, span_b)
            if found is not None or (_is_numberish(words_a[i1:i2]) and _is_numberish(words_b[j1:j2])):
                kind = "value_changed"
                values = found or values
        changes.append(
            TextChange(
                kind=kind,
                before_clause=a.node_id,
                after_clause=b.node_id,
                before=span_a,
                after=span_b,
                before_words=texts.before[span_a[0] : span_a[1]],
                after_words=texts.after[span_b[0] : span_b[1]],
                value_before=values[0],
                value_after=values[1],
            )
        )
    return changes


def _whole_lines(text: str, span: Span) -> bool:
    """Rule "whole paragraphs": words inserted or deleted that are whole lines of their text are a
    clause inserted or struck, even where the clause tree joined that paragraph to its neighbour."""
    start, end = span
    return end > start and (start == 0 or text[start - 1] == "\n") and (end == len(text) or text[end] == "\n")


def _token_span(tokens: Sequence[Span], first: int, last: int, end: int) -> Span:
    """The characters of tokens ``first`` to ``last`` (exclusive); where there are none, the point
    before the next token (the clause's end after its last)."""
    if last > first:
        return (tokens[first][0], tokens[last - 1][1])
    point = tokens[first][0] if first < len(tokens) else (tokens[-1][1] if tokens else end)
    return (point, point)


def _runs(indexes: Sequence[int]) -> list[list[int]]:
    """Consecutive indexes grouped (a struck article and its subclauses are one change)."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and runs[-1][-1] == index - 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def compare_texts(
    before: tuple[str, ClauseTree],
    after: tuple[str, ClauseTree],
    before_name: str = "before",
    after_name: str = "after",
    min_similarity: float = MIN_SIMILARITY,
) -> Comparison:
    """The clause-level changes from the text ``before`` to the text ``after`` (each with its tree)."""
    texts = _Texts(before[0], after[0])
    units_a, units_b = clause_units(*before), clause_units(*after)
    pairs = _matched(units_a, units_b, min_similarity)
    reverse = {j: i for i, j in pairs.items()}
    kept = _kept_in_order(pairs)
    changes: list[TextChange] = []
    for run in _runs([i for i in sorted(pairs) if i not in kept]):
        first, last = units_a[run[0]], units_a[run[-1]]
        firsts, lasts = units_b[pairs[run[0]]], units_b[pairs[run[-1]]]
        changes.append(
            TextChange(
                kind="clause_moved",
                before_clause=first.node_id,
                after_clause=firsts.node_id,
                before=(first.start, last.end),
                after=(firsts.start, max(firsts.end, lasts.end)),
                before_words=texts.before[first.start : last.end],
                after_words=texts.after[firsts.start : max(firsts.end, lasts.end)],
            )
        )
    for i, j in sorted(pairs.items()):
        if units_a[i].words != units_b[j].words:
            changes.extend(_word_changes(texts, units_a[i], units_b[j]))
    starts_b = [u.start for u in units_b] + [len(texts.after)]
    starts_a = [u.start for u in units_a] + [len(texts.before)]
    changes.extend(_left_alone(units_a, pairs, starts_b, texts.before, struck=True))
    changes.extend(_left_alone(units_b, reverse, starts_a, texts.after, struck=False))
    changed = _changed_lines(texts.before, texts.after)
    changes = [c for c in changes if _in_changed_lines(c, changed)]
    changes.sort(key=lambda c: (c.after[0], c.before[0]))
    renumbered = sum(1 for i, j in pairs.items() if units_a[i].label != units_b[j].label)
    return Comparison(
        before_name=before_name,
        after_name=after_name,
        changes=changes,
        clauses_compared=len(units_b),
        renumbered=renumbered,
    )


def _changed_lines(before: str, after: str) -> tuple[list[Span], list[Span]]:
    """The lines of each text that a line-by-line comparison does not find, in order, in the other
    (as character spans): where the two texts differ at all."""
    lines_a, lines_b = before.split("\n"), after.split("\n")
    starts_a, starts_b = _line_starts(lines_a), _line_starts(lines_b)
    regions_a: list[Span] = []
    regions_b: list[Span] = []
    matcher = SequenceMatcher(None, lines_a, lines_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            regions_a.append((starts_a[i1], starts_a[i2 - 1] + len(lines_a[i2 - 1])))
        if j2 > j1:
            regions_b.append((starts_b[j1], starts_b[j2 - 1] + len(lines_b[j2 - 1])))
    return regions_a, regions_b


def _line_starts(lines: Sequence[str]) -> list[int]:
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    return starts


def _in_changed_lines(change: TextChange, changed: tuple[list[Span], list[Span]]) -> bool:
    """Rule "changed lines only": a change is reported only where the texts differ. Clause trees
    of two texts can cut the same unchanged lines differently (a heading joined to the clause
    under it in one text and not the other); what such a cut produces touches no line that
    differs, and is not a change."""
    return any(overlap(change.before, r) for r in changed[0]) or any(
        overlap(change.after, r) for r in changed[1]
    )


def _left_alone(
    units: Sequence[Unit], matched: dict[int, int], other_starts: Sequence[int], text: str, *, struck: bool
) -> list[TextChange]:
    """Runs of units with no match in the other text: struck (units of the text before) or
    inserted (of the text after), each placed where it would be in the other text."""
    changes: list[TextChange] = []
    for run in _runs([i for i in range(len(units)) if i not in matched]):
        first, last = units[run[0]], units[run[-1]]
        point = other_starts[_next_match(matched, run[-1], len(units), len(other_starts) - 1)]
        own, other, words = (first.start, last.end), (point, point), text[first.start : last.end]
        if struck:
            change = TextChange(
                kind="clause_struck", before_clause=first.node_id, before=own, after=other, before_words=words
            )
        else:
            change = TextChange(
                kind="clause_inserted", after_clause=first.node_id, before=other, after=own, after_words=words
            )
        changes.append(change)
    return changes


def _next_match(pairs: dict[int, int], index: int, count: int, other_count: int) -> int:
    """The other text's unit matched to the first matched unit after ``index`` (its count: none)."""
    for later in range(index + 1, count):
        if later in pairs:
            return pairs[later]
    return other_count


def with_authors(comparison: Comparison, tracked: TrackedText) -> Comparison:
    """The comparison of a Word file's two texts with each change's authors: those of the
    tracked changes it overlaps (or touches, for a point) in either text."""
    attributed: list[TextChange] = []
    for change in comparison.changes:
        authors: list[str] = []
        for revision in tracked.changes:
            if revision.before is None or revision.proposed is None:
                continue
            touches = spans_meet(change.before, revision.before) or spans_meet(
                change.after, revision.proposed
            )
            if touches and revision.author not in authors:
                authors.append(revision.author)
        attributed.append(change.model_copy(update={"authors": authors}))
    return comparison.model_copy(update={"changes": attributed})


def spans_meet(a: Span, b: Span) -> bool:
    """Two spans overlap; an empty one meets a span it lies inside or at the edge of."""
    if a[1] > a[0] and b[1] > b[0]:
        return a[0] < b[1] and b[0] < a[1]
    if a[1] > a[0]:
        return a[0] <= b[0] <= a[1]
    if b[1] > b[0]:
        return b[0] <= a[0] <= b[1]
    return False


def text_and_tree(
    index: ContractIndex, text: TextVersion | None, structure: StructureSettings
) -> tuple[ParsedDocument, ClauseTree]:
    """A stored contract's document and clause tree as its text ``text`` (None: the text it was
    read as); the tree of a Word file's other text is built here (ingest builds the read one)."""
    document = index.document
    if text is None or (document.tracked is not None and text == document.tracked.read_as):
        return document, index.tree
    if document.tracked is None:
        raise NoTrackedChanges(
            f"contract {index.contract_id!r} has no tracked changes, so no text {text!r} of its own",
            hint="compare it with another contract or version (ID@VERSION), or ingest the Word file "
            "that holds the tracked changes",
        )
    other = document.as_version(text)
    return other, build_tree(other, structure)


def compare_stored(
    before: tuple[ContractIndex, TextReference],
    after: tuple[ContractIndex, TextReference],
    structure: StructureSettings,
) -> Comparison:
    """Two texts of stored contracts compared (see :func:`text_and_tree`); a Word file's two texts
    get each change's authors from its tracked changes."""
    (index_a, reference_a), (index_b, reference_b) = before, after
    document_a, tree_a = text_and_tree(index_a, reference_a.text, structure)
    document_b, tree_b = text_and_tree(index_b, reference_b.text, structure)
    comparison = compare_texts(
        (document_a.text, tree_a), (document_b.text, tree_b), reference_a.describe(), reference_b.describe()
    )
    one_file = index_a.path == index_b.path and reference_a.text != reference_b.text
    if one_file and document_b.tracked is not None:
        comparison = with_authors(comparison, document_b.tracked)
    return comparison


def word_round(index: ContractIndex, structure: StructureSettings) -> WordRound:
    """A stored Word file's tracked changes as a negotiation round: every change by author, the
    comments, and its text before compared clause by clause with its text as proposed."""
    tracked = index.document.tracked
    if tracked is None:
        raise NoTrackedChanges(
            f"contract {index.contract_id!r} holds no tracked changes",
            hint="ingest the other side's Word file with its tracked changes, or compare two versions "
            "(clausewise compare ID@1 ID@2; GET /v1/compare?before=ID@1&after=ID@2)",
        )
    reference = TextReference(contract=index.contract_id, version=index.manifest.version)
    comparison = compare_stored(
        (index, reference.model_copy(update={"text": "before"})),
        (index, reference.model_copy(update={"text": "proposed"})),
        structure,
    )
    return WordRound(
        contract_id=index.contract_id,
        version=index.manifest.version,
        read_as=tracked.read_as,
        authors=tracked.authors(),
        revisions=tracked.changes,
        comments=tracked.comments,
        comparison=comparison,
    )
