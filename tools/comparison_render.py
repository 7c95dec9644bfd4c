"""A comparison of two texts, and a Word file's negotiation round, as Markdown: what a lawyer
pastes into a note to the client (each change, its clause in both texts, its words)."""

from __future__ import annotations

from clausewise.core.comparison import KIND_WORDS, Comparison, RoundAssessment, TextChange, WordRound

#: The longest run of a change's words shown in a row (the spans hold them all).
SHOWN_WORDS = 240


def _words(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= SHOWN_WORDS else text[: SHOWN_WORDS - 1].rstrip() + "…"


def change_clause(change: TextChange) -> str:
    """The clause a change is in, in both texts when its number differs ("3 -> 4")."""
    before, after = change.before_clause, change.after_clause
    if before and after and before != after:
        return f"{before} -> {after}"
    return after or before or ""


def change_line(change: TextChange) -> str:
    """One change in words: its kind, the words before and after, and the values."""
    if change.kind == "value_changed" and change.value_before:
        return f"{change.value_before} -> {change.value_after}"
    before, after = _words(change.before_words), _words(change.after_words)
    if change.kind == "clause_moved":
        return after
    return " -> ".join(part for part in (before and f"~~{before}~~", after) if part)


def comparison_summary(comparison: Comparison) -> str:
    """The comparison in one line: how many changes of each kind, and the clauses renumbered only."""
    counts = ", ".join(f"{count} {KIND_WORDS[kind]}" for kind, count in comparison.counts().items())
    return (
        f"{len(comparison.changes)} change(s) in {comparison.clauses_compared} clause(s)"
        + (f": {counts}" if counts else "")
        + (f"; {comparison.renumbered} clause(s) renumbered only" if comparison.renumbered else "")
    )


def comparison_markdown(comparison: Comparison) -> str:
    lines = [
        f"# Changes from {comparison.before_name} to {comparison.after_name}",
        "",
        comparison_summary(comparison),
        "",
    ]
    if comparison.changes:
        lines += ["| # | change | clause | words | by |", "|---|---|---|---|---|"]
        for number, change in enumerate(comparison.changes, start=1):
            lines.append(
                f"| {number} | {KIND_WORDS[change.kind]} | {change_clause(change)} | {change_line(change)} "
                f"| {', '.join(change.authors)} |"
            )
    return "\n".join(lines) + "\n"


def round_markdown(round_: WordRound) -> str:
    authors = ", ".join(f"{author} ({count})" for author, count in round_.authors.items())
    lines = [
        f"# Tracked changes in {round_.contract_id} (version {round_.version})",
        "",
        f"{len(round_.revisions)} tracked change(s) by {authors or 'no named author'}; "
        f"{len(round_.comments)} comment(s). The contract is read as {round_.read_as}.",
        "",
    ]
    if round_.comments:
        lines += ["## Comments", ""]
        lines += [f"- {c.author}: {_words(c.text)}" for c in round_.comments]
        lines.append("")
    body = comparison_markdown(round_.comparison).split("\n", 1)[1]
    return "\n".join(lines) + "## Clause by clause\n" + body


def assessment_markdown(assessed: RoundAssessment) -> str:
    """The round against the playbook: each position's movement and rationale, worse first, then
    the round as :func:`round_markdown` writes it and the changes no position covers."""
    lines = [
        f"# {assessed.round.contract_id}: the round against {assessed.playbook} "
        f"(version {assessed.playbook_version})",
        "",
        "| position | risk | movement | rationale |",
        "|---|---|---|---|",
    ]
    for position in assessed.positions:
        offer = f" We can offer {position.offer.inserted} (our fallback)." if position.offer else ""
        rationale = _words(position.rationale) + offer.replace("|", "\\|")
        lines.append(f"| {position.clause} | {position.risk} | {position.movement} | {rationale} |")
    if assessed.not_covered:
        lines += ["", "Changes in no position's clause: " + ", ".join(f"[{n}]" for n in assessed.not_covered)]
    return "\n".join(lines) + "\n\n" + round_markdown(assessed.round).replace("# ", "## ", 1)
