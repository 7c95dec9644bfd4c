"""``clausewise exemplars add|list``: the library of labelled cross-document examples (the lab adds
``seed``, from the benchmark data)."""

from __future__ import annotations

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of
from tools.retrieval.exemplars import Exemplar

exemplars_app = typer.Typer(
    help="Labelled examples shown to the model (cross-document exemplars).", no_args_is_help=True
)


@exemplars_app.command("add")
def add(
    ctx: typer.Context,
    text: str = typer.Option(..., "--text", help="The clause or span."),
    label: str = typer.Option(..., "--label", help="How it was decided (e.g. Entailment)."),
    question: str = typer.Option(..., "--question", help="The hypothesis or question it answers."),
    source: str = typer.Option("user", "--source", help="Where it comes from."),
) -> None:
    """Add one labelled example."""
    library = state_of(ctx).runtime().exemplars
    added = library.add([Exemplar(text=text, label=label, question=question, source=source)])
    console.print("Added 1 example." if added else "Already in the library.")


@exemplars_app.command("list")
def list_examples(
    ctx: typer.Context,
    query: str | None = typer.Option(None, "--query", help="Show the examples most similar to this text."),
    limit: int = typer.Option(20, "--limit", help="How many to show."),
) -> None:
    """List the library (or search it)."""
    library = state_of(ctx).runtime().exemplars
    examples = library.search(query, limit) if query else library.examples()[:limit]
    table = Table(title=f"Exemplars ({len(library.examples())} in the library)")
    for column in ("label", "question", "text", "source", *(["score"] if query else [])):
        table.add_column(column, overflow="fold")
    for example in examples:
        row = [example.label, example.question[:80], example.text[:160], example.source]
        table.add_row(*row, *([str(example.score)] if query else []))
    console.print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(exemplars_app, name="exemplars")
