"""``clausewise eval playbook``: playbook review scored against CUAD's annotations.

The positions of ``data/playbook-bench.yaml`` are chosen so that each contract's gold verdict follows
from CUAD's annotations, read here with the benchmark's own rules (never the product's value
reader, which is what is scored):

- ``require: present`` / ``absent``: the category annotated or not;
- ``law``: the annotated governing-law text names exactly one of the places the benchmark knows
  (the standard's, the fallback's, or another);
- ``duration``: the annotated text states exactly one duration (figures, or number words up to
  twenty and the tens), compared in days; an annotation that states none or several is left out
  (its gold verdict is not determined).

Reported per half (tune / check, split by contract as the question bank is): the accuracy of
committed verdicts, the refused share, both per position type and per position; citation
validity (every quote is the contract's text at its span); and the redlines: each contract's
DOCX opened with python-docx (and LibreOffice when installed), the text with every change
rejected equal to the contract, the tracked changes counted against the deviations with edits,
and the edited contract ingested and reviewed again (the share of redlined positions that then
meet the standard or a fallback). Seconds per review (no language model), and pages.
"""

from __future__ import annotations

import hashlib
import io
import re
import statistics
import tempfile
import time
import zipfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lxml import etree

from clausewise.core.results import PlaybookSummary, PositionReview
from clausewise_lab.evals.bank import Half, in_half
from clausewise_lab.evals.cuad_bench import cuad_contracts
from clausewise_lab.evals.data import document_ids, ingest_text
from clausewise_lab.evals.data_files import data_file
from clausewise_lab.evals.office import converted, office_program
from clausewise_lab.evals.shares import share
from tools.playbook.positions import Playbook, Position, Requirement, parse_positions

if TYPE_CHECKING:
    from clausewise.core.progress import Progress
    from clausewise.runtime import Runtime

GOALS = {"accuracy": 0.95, "refused_share": 0.20, "citation_validity": 1.0, "redecided_meets": 0.90}
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
#: Places a governing-law annotation is read for (the benchmark's own list, lower case).
PLACES = (
    "delaware", "new york", "california", "texas", "florida", "nevada", "illinois", "massachusetts",
    "new jersey", "pennsylvania", "washington", "virginia", "georgia", "ohio", "michigan", "colorado",
    "minnesota", "utah", "arizona", "maryland", "connecticut", "north carolina", "oregon", "ontario",
    "british columbia", "england", "hong kong", "singapore", "china", "germany", "israel", "japan",
    "switzerland", "netherlands", "france", "ireland", "india", "canada", "tennessee", "missouri",
    "wisconsin", "indiana", "kansas", "louisiana", "quebec", "alberta", "australia",
)  # fmt: skip
_NUMBER_WORDS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "one hundred eighty": 180,
}
_DURATION = re.compile(
    r"\b(?:(\d{1,4})|(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r"))"
    r"\s*(?:\(\s*\d{1,4}\s*\)\s*)?(?:calendar\s+|business\s+|working\s+)?(day|month|year)s?\b",
    re.IGNORECASE,
)
_DAYS = {"day": 1, "month": 30, "year": 365}


def bench_playbook() -> Playbook:
    return parse_positions(
        data_file("playbook-bench.yaml").read_text(encoding="utf-8"), "playbook-bench.yaml"
    )


# -- gold verdicts, read from CUAD's annotations -------------------------------------------------------


def _places(text: str) -> set[str]:
    low = " ".join(re.sub(r"[^a-z ]+", " ", text.lower()).split())
    return {p for p in PLACES if re.search(rf"\b{p}\b", low)}


def _days(text: str) -> set[int]:
    found = set()
    for figures, words, unit in _DURATION.findall(text):
        count = int(figures) if figures else _NUMBER_WORDS[words.lower()]
        found.add(count * _DAYS[unit.lower()])
    return found


def _bound_days(words: str) -> int:
    (days,) = _days(words)
    return days


def _first_met(
    requirements: Sequence[Requirement], met: Callable[[Requirement], bool]
) -> tuple[str, int | None]:
    """The standard met, else the first fallback met (its number), else a deviation."""
    for number, requirement in enumerate(requirements):
        if met(requirement):
            return ("meets_standard", None) if number == 0 else ("meets_fallback", number)
    return "deviation", None


def _within(days: int, requirement: Requirement) -> bool:
    bound = requirement.duration
    assert bound is not None
    low = _bound_days(bound.at_least) if bound.at_least else None
    high = _bound_days(bound.at_most) if bound.at_most else None
    return (low is None or days >= low) and (high is None or days <= high)


def gold_verdict(position: Position, annotations: Sequence[str]) -> tuple[str, int | None] | None:
    """The verdict CUAD's annotations imply for ``position`` (None: not determined)."""
    present = bool(annotations)
    standard = position.standard
    if standard.require is not None:
        if standard.require == "present":
            return ("meets_standard", None) if present else ("missing", None)
        return ("deviation", None) if present else ("meets_standard", None)
    if not present:
        return "missing", None
    text = " ".join(annotations)
    requirements = [standard, *position.fallbacks]
    if standard.law is not None:
        places = _places(text)
        if len(places) != 1:
            return None
        (place,) = places
        return _first_met(requirements, lambda r: place in {p.lower() for p in r.law or ()})
    if standard.duration is not None:
        days = _days(text)
        if len(days) != 1:
            return None
        (value,) = days
        return _first_met(requirements, lambda r: _within(value, r))
    return None


def position_type(position: Position) -> str:
    standard = position.standard
    return f"require {standard.require}" if standard.require else standard.form


# -- the redline DOCX, read with the benchmark's own reader ---------------------------------------------


def docx_texts(data: bytes) -> tuple[str, str, int]:
    """(text with every change rejected, with every change accepted, number of changes)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        body = etree.fromstring(archive.read("word/document.xml"))
    rejected, accepted = [], []
    changes = len(body.findall(f".//{W}ins")) + len(body.findall(f".//{W}del"))
    for paragraph in body.iter(f"{W}p"):
        mark = paragraph.find(f"{W}pPr/{W}rPr")
        inserted_mark = mark is not None and mark.find(f"{W}ins") is not None
        deleted_mark = mark is not None and mark.find(f"{W}del") is not None
        kept_rejected, kept_accepted = [], []
        for node in paragraph.iter(f"{W}t", f"{W}delText"):
            in_insertion = node.getparent().getparent().tag == f"{W}ins"
            if node.tag == f"{W}delText":
                kept_rejected.append(node.text or "")
            elif in_insertion:
                kept_accepted.append(node.text or "")
            else:
                kept_rejected.append(node.text or "")
                kept_accepted.append(node.text or "")
        rejected.append(("".join(kept_rejected), inserted_mark))
        accepted.append(("".join(kept_accepted), deleted_mark))

    def joined(paragraphs: list[tuple[str, bool]]) -> str:
        last = len(paragraphs) - 1
        return "".join(t + ("" if glue or n == last else "\n") for n, (t, glue) in enumerate(paragraphs))

    return joined(rejected), joined(accepted), changes


def libreoffice_opens(data: bytes) -> bool | None:
    """Whether headless LibreOffice converts the DOCX to text (None: not installed)."""
    office = office_program()
    if office is None:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        return converted(data, office, Path(scratch), "txt:Text", name="redline") is not None


# -- the run -----------------------------------------------------------------------------------------


def _review(runtime: Runtime, contract_id: str, playbook: Playbook) -> tuple[list[PositionReview], float]:
    from clausewise.api import Clausewise

    started = time.perf_counter()
    items = list(Clausewise(runtime=runtime, audit=False).playbook_review(contract_id, playbook))
    seconds = time.perf_counter() - started
    return [i for i in items if not isinstance(i, PlaybookSummary)], seconds


def timed_pdfs(runtime: Runtime, paths: Sequence[Path]) -> dict[str, Any]:
    """Each PDF ingested afresh and reviewed against the built-in commercial playbook (fifteen
    positions), in quick mode unless ``playbook.draft`` is set: pages, seconds to ingest, seconds
    to review."""
    from clausewise.api import Clausewise
    from tools.playbook.positions import load_positions

    playbook = load_positions("playbook-commercial")
    rows = []
    for path in paths:
        started = time.perf_counter()
        ingested = Clausewise(runtime=runtime, audit=False).ingest(path, force=True)
        ingest_seconds = time.perf_counter() - started
        reviews, review_seconds = _review(runtime, ingested.contract_id, playbook)
        rows.append(
            {
                "file": path.name,
                "pages": ingested.manifest.pages,
                "positions": len(reviews),
                "ingest_seconds": round(ingest_seconds, 2),
                "review_seconds": round(review_seconds, 2),
            }
        )
    mode = "drafted" if runtime.settings.playbook.draft else "quick"
    return {"benchmark": "playbook-timing", "playbook": playbook.name, "mode": mode, "pdfs": rows}


def _scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if r["gold"] is not None]
    committed = [r for r in scored if not r["verdict"].startswith("refused")]
    return {
        "scored": len(scored),
        "committed": len(committed),
        "accuracy": share(sum(r["correct"] for r in committed), len(committed)),
        "refused_share": share(len(scored) - len(committed), len(scored)),
    }


def run(
    runtime: Runtime,
    root: Path,
    *,
    half: Half = "tune",
    limit: int | None = None,
    redecide: bool = True,
    progress: Progress | None = None,
) -> dict[str, Any]:
    from clausewise.api import Clausewise
    from clausewise.core.progress import NoProgress

    progress = progress or NoProgress()
    playbook = bench_playbook()
    contracts = [c for c in cuad_contracts(root) if in_half(c.title, half)][:limit]
    ids = document_ids([c.title for c in contracts], "cuad")
    api = Clausewise(runtime=runtime, audit=False)
    rows: list[dict[str, Any]] = []
    documents: list[dict[str, Any]] = []
    progress.stage(f"playbook review ({half} half)", total=len(contracts))
    with tempfile.TemporaryDirectory() as scratch:
        for contract in contracts:
            contract_id = ingest_text(runtime, contract.text, ids[contract.title], Path(scratch))
            index = runtime.store.open(contract_id)
            text, pages = index.document.text, index.manifest.pages
            index.close()
            reviews, seconds = _review(runtime, contract_id, playbook)
            valid = all(text[c.span[0] : c.span[1]] == c.quote for r in reviews for c in r.citations)
            citations = sum(len(r.citations) for r in reviews)
            for position, review in zip(playbook.positions, reviews, strict=True):
                gold = gold_verdict(position, [t for t, _ in contract.answers.get(position.clause, [])])
                rows.append(
                    {
                        "contract": contract.title,
                        "position": position.id,
                        "type": position_type(position),
                        "gold": list(gold) if gold else None,
                        "verdict": review.verdict,
                        "fallback": review.fallback,
                        "correct": gold is not None and (review.verdict, review.fallback) == gold,
                        "confidence": review.confidence,
                        "redline": review.redline.kind if review.redline else None,
                        "drafting": review.drafting,
                    }
                )
            document = {
                "contract": contract.title,
                "pages": pages,
                "characters": len(text),
                "seconds": round(seconds, 2),
                "citations": citations,
                "citations_valid": valid,
            }
            document.update(
                _redlines(api, runtime, contract_id, text, reviews, playbook, Path(scratch), redecide)
            )
            documents.append(document)
            progress.advance()
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_position: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_type[row["type"]].append(row)
        by_position[row["position"]].append(row)
    seconds = [d["seconds"] for d in documents]
    struck = [n for d in documents for n in d["struck"]]
    redlined = sum(d["redlined_positions"] for d in documents)
    met = sum(d["redecided_meets"] for d in documents if d["redecided_meets"] is not None)
    return {
        "benchmark": "playbook",
        "data": str(root),
        "half": half,
        "goals": GOALS,
        "playbook": {
            "name": playbook.name,
            "version": playbook.version,
            "positions": len(playbook.positions),
        },
        "contracts": len(contracts),
        **_scores(rows),
        "per_type": {k: _scores(v) for k, v in sorted(by_type.items())},
        "per_position": {k: _scores(v) for k, v in by_position.items()},
        "citation_validity": share(sum(d["citations_valid"] for d in documents), len(documents)),
        "redlines": {
            "docx_opened_python_docx": sum(d["python_docx_opens"] for d in documents),
            "docx_opened_libreoffice": [d["libreoffice_opens"] for d in documents].count(True),
            "libreoffice_installed": any(d["libreoffice_opens"] is not None for d in documents),
            "rejected_text_identical": sum(d["rejected_identical"] for d in documents),
            "accepted_text_as_edited": sum(d["accepted_as_edited"] for d in documents),
            "changes_match_edits": sum(d["changes_match_edits"] for d in documents),
            "documents": len(documents),
            "redlined_positions": redlined,
            "redecided_meets": met,
            "redecided_meets_share": share(met, redlined) if redecide else None,
            "redecided_by_kind": _by_kind(documents) if redecide else None,
            "struck_characters_median": statistics.median(struck) if struck else None,
            "struck_characters_total": sum(struck),
        },
        "drafting": _drafting(rows) if runtime.settings.playbook.draft else None,
        "seconds_per_review_p50": round(statistics.median(seconds), 2) if seconds else None,
        "seconds_per_review_max": max(seconds, default=None),
        # CUAD's texts are ingested as text (one page): their length says how long they are,
        # about 3,000 characters to a printed page
        "longest": max(
            ({"characters": d["characters"], "seconds": d["seconds"]} for d in documents),
            key=lambda d: d["characters"],
            default=None,
        ),
        "documents": documents,
        "rows": rows,
    }


def _redlines(
    api: Any,
    runtime: Runtime,
    contract_id: str,
    text: str,
    reviews: list[PositionReview],
    playbook: Playbook,
    scratch: Path,
    redecide: bool,
) -> dict[str, Any]:
    """The contract's redline DOCX checked, and (``redecide``) the edited contract reviewed again."""
    import docx

    data = api.redline_docx(contract_id, reviews, author="benchmark", when=datetime.now(UTC)).data
    rejected, accepted, changes = docx_texts(data)
    try:
        docx.Document(io.BytesIO(data))
        opens = True
    except (ValueError, KeyError, zipfile.BadZipFile):
        opens = False
    edited = _edited(text, reviews)
    kept = edited["kept"]
    out = {
        "python_docx_opens": opens,
        "libreoffice_opens": libreoffice_opens(data),
        "rejected_identical": rejected == text,
        "accepted_as_edited": accepted == edited["text"],
        "tracked_changes": changes,
        "changes_match_edits": changes == edited["changes"],
        "redlined_positions": len(kept),
        "redecided_meets": None,
        "kinds": {r.position_id: r.redline.kind for r in reviews if r.redline and r.position_id in kept},
        # how much a strike takes out: the words a lawyer would have to read back in
        "struck": [
            sum(len(e.deleted) for e in r.redline.edits)
            for r in reviews
            if r.redline and r.redline.kind == "delete" and r.position_id in kept
        ],
    }
    if redecide and kept:
        digest = hashlib.sha1(accepted.encode("utf-8")).hexdigest()[:10]  # one id per edited text
        redlined_id = ingest_text(runtime, accepted, f"{contract_id[:60]}-redlined-{digest}", scratch)
        again, _ = _review(runtime, redlined_id, playbook)
        verdicts = {r.position_id: r.verdict for r in again}
        out["redecided_meets"] = sum(verdicts.get(p, "").startswith("meets") for p in kept)
        out["redecided"] = {p: verdicts.get(p) for p in kept}
    return out


def _drafting(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """With playbook.draft: how many positions were drafted, how many drafts were kept, and why
    the others were refused (the words in brackets of the review's note)."""
    out: dict[str, int] = defaultdict(int)
    for row in rows:
        note = row["drafting"]
        if not note:
            continue
        out["drafted"] += 1
        if note.startswith("drafted by the model"):
            out["kept"] += 1
        else:
            out[note[note.find("(") + 1 : note.find(")")]] += 1
    return dict(out)


def _by_kind(documents: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per kind of redline: how many were kept in the DOCX, how many meet the position when the
    edited contract is reviewed again."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"redlined": 0, "meets": 0})
    for document in documents:
        for position, kind in document["kinds"].items():
            out[kind]["redlined"] += 1
            out[kind]["meets"] += bool(
                (document.get("redecided") or {}).get(position, "").startswith("meets")
            )
    return dict(out)


def _edited(text: str, reviews: Sequence[PositionReview]) -> dict[str, Any]:
    """What the DOCX should hold, recomputed here: the redlines in risk order, any that touch
    words an earlier one changes left out; the edited text and the number of tracked changes
    (one per deleted and one per inserted piece, one more per line break in a piece)."""
    tiers = ("high", "medium", "low")
    ranked = sorted((r for r in reviews if r.redline and r.redline.edits), key=lambda r: tiers.index(r.risk))
    taken: list[tuple[int, int]] = []
    kept_ids, edits = [], []
    for review in ranked:
        spans = [tuple(e.span) for e in review.redline.edits]  # type: ignore[union-attr]
        if any(a < d and c < b for a, b in spans for c, d in taken):
            continue
        taken += spans  # type: ignore[arg-type]
        kept_ids.append(review.position_id)
        edits += review.redline.edits  # type: ignore[union-attr]
    out, at, changes = [], 0, 0
    numbered_at: dict[int, set[str]] = defaultdict(set)  # new clauses' numbers at each place
    for edit in sorted(edits, key=lambda e: (e.span[0], e.span[1])):
        inserted = edit.inserted
        label = re.match(r"\n\n(\d+(?:\.\d+)*)\.? ", inserted) if edit.span[0] == edit.span[1] else None
        if label:  # a second new clause at one place takes the number after the first's
            number = label.group(1)
            while number in numbered_at[edit.span[0]]:
                head, _, last = number.rpartition(".")
                number = f"{head}.{int(last) + 1}" if head else str(int(last) + 1)
            numbered_at[edit.span[0]].add(number)
            inserted = inserted[:2] + number + inserted[2 + len(label.group(1)) :]
        out += [text[at : edit.span[0]], inserted]
        at = edit.span[1]
        for piece in (text[edit.span[0] : edit.span[1]], edit.inserted):
            if piece:
                lines = piece.split("\n")
                changes += sum(1 for line in lines if line) + len(lines) - 1
    out.append(text[at:])
    return {"text": "".join(out), "kept": kept_ids, "changes": changes}
