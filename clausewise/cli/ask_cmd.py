"""``clausewise ask`` and ``clausewise chat``: questions about one contract, answered with a
verified report, with live progress; ``ask`` over several contracts or questions is a data
room's grid (:mod:`clausewise.cli.room_cmd`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markdown import Markdown

from clausewise.cli.app import console, error_console, state_of
from clausewise.cli.options import TENANT
from clausewise.cli.results import Output
from clausewise.core.errors import ClausewiseError, ContractNotFound
from clausewise.core.report import Report

if TYPE_CHECKING:
    from clausewise.api import Clausewise, ProgressEvent

_TURNS = typer.Option(
    None, "--turns", min=1, max=10, help="Research turns at most (default interrogation.max_turns)."
)


def answer_line(data: dict) -> str:
    """The decided answer of an ``answer`` event in a line ("Yes, 9.22", "New York, 11.1",
    "Unclear; closest: 4.2, 7.1"), before the report that explains it."""
    places = ", ".join(g["node_id"] for g in data.get("grounds", []))
    closest = ", ".join(c["node_id"] for c in data.get("closest", []))
    if data.get("verdict") == "unclear":
        return f"unclear; closest clauses: {closest or 'none'}"
    said = data.get("value") or (data.get("verdict") or "").capitalize() or "not stated"
    if data.get("form") == "value" and not data.get("value"):
        said = "not stated in the contract"
    return f"{said} ({places})" if places else f"{said} (closest clauses: {closest})" if closest else said


def _describe(event: ProgressEvent) -> str:
    data = event.data
    if event.event == "start":
        return f"Question: {data['question']} (up to {data['max_turns']} turn(s))"
    if event.event == "plan":
        return "Researched in parts:" + "".join(f"\n  part: {p}" for p in data["parts"])
    if event.event == "answer":
        return f"[bold]Answer[/bold] ({data.get('decided_by')}): {answer_line(data)}"
    if event.event == "question":
        return f"[bold]Turn {event.turn} of {event.of}[/bold]: asking [italic]{data['question']}[/italic]"
    if event.event == "research":
        if data.get("error"):
            return f"  found {data['spans']} span(s), but no usable answer: {data['error']}"
        rejected = f", {data['rejected']} unverifiable quote(s) dropped" if data.get("rejected") else ""
        return (
            f"  found {data['spans']} span(s) ({', '.join(data['nodes'][:5])}), "
            f"{data['citations']} verified quote(s){rejected}"
        )
    if event.event == "draft":
        state = "complete" if data.get("complete") else "incomplete"
        return f"  draft updated: {state}, confidence {data.get('confidence', 0):.2f}"
    if event.event == "final":
        removed = f", {data['removed']} citation(s) removed" if data.get("removed") else ""
        return f"Report ready: {data['sources']} verified source(s){removed}"
    return event.event


def _show(report: Report, output: Output) -> None:
    """The report: as the output convention says, else rendered as Markdown for the terminal."""
    if output.given or output.out is not None:
        output.result(report.render(output.fmt), "Report")
    else:
        console.print(Markdown(report.to_markdown()))


def ask(
    ctx: typer.Context,
    arguments: list[str] = typer.Argument(
        ...,
        metavar="CONTRACT|FOLDER... QUESTION...",
        help="Contracts (ids, files or folders), then the questions. One contract and one question: "
        "the full report; more of either (or --all): a grid of quick answers.",
    ),
    every_contract: bool = typer.Option(
        False, "--all", help="Ask every contract of the tenant (every argument is then a question)."
    ),
    context: str = typer.Option("", "--context", help="Background the answer should take into account."),
    instructions: str = typer.Option("", "--instructions", help="How the report should be written."),
    turns: int | None = _TURNS,
    fmt: str | None = typer.Option(
        None, "--format", help="A report: md, json or html (default md). A grid: md, csv, json or xlsx."
    ),
    out: Path | None = typer.Option(None, "--out", help="Write the report (or the grid) to this file."),
    quick: bool = typer.Option(
        False, "--quick", help="Only the short answer and its sources, decided in seconds, no report."
    ),
    provision: str | None = typer.Option(
        None,
        "--provision",
        help="Where an answer offered the question back ('Did you mean ...'): the key of the provision "
        "meant (e.g. cuad:cap-on-liability); its decider answers.",
    ),
    fresh: bool = typer.Option(False, "--fresh", help="A grid: ignore earlier results of the same grid."),
    report: list[str] = typer.Option(
        None,
        "--report",
        help="A grid: also write the full report of these cells, CONTRACT:N (question N), CONTRACT "
        "(all its questions) or *:N (repeatable).",
    ),
    reports_dir: Path | None = typer.Option(
        None, "--reports-dir", help="A grid: where --report writes (default: beside --out, or room-reports/)."
    ),
    tenant: str | None = TENANT,
) -> None:
    """Answer a question about a contract with a verified, cited legal report; or questions over
    a data room (several contracts, a folder or --all): a grid of verified quick answers."""
    from clausewise.api import Clausewise
    from clausewise.cli.room_args import split_arguments
    from clausewise.cli.room_cmd import run_room

    api = Clausewise(runtime=state_of(ctx).runtime(tenant))
    store = api.runtime.store

    def is_contract(argument: str) -> bool:
        if Path(argument).exists():
            return True
        try:
            store.resolve(argument)
        except ContractNotFound:
            return False
        return True

    def not_a_contract(argument: str) -> ClausewiseError:
        try:
            store.resolve(argument)
        except ContractNotFound as error:
            return error
        return ContractNotFound(f"{argument!r} names no contract", hint="see `clausewise contracts list`")

    split = split_arguments(arguments, is_contract, not_a_contract, every_contract=every_contract)
    single = len(split.contracts) == 1 and len(split.questions) == 1 and not Path(split.contracts[0]).is_dir()
    if split.every_contract or not single:
        run_room(
            api,
            split,
            fmt=fmt,
            out=out,
            fresh=fresh,
            reports=report or [],
            reports_dir=reports_dir,
            context=context,
            instructions=instructions,
            turns=turns,
        )
        return
    output = Output.of(fmt, out, "md", ("md", "json") if quick else ("md", "json", "html"))
    _ask_one(
        api, split.contracts[0], split.questions[0], output, quick, context, instructions, turns, provision
    )


def _ask_one(
    api: Clausewise,
    contract: str,
    question: str,
    output: Output,
    quick: bool,
    context: str,
    instructions: str,
    turns: int | None,
    provision: str | None = None,
) -> None:
    """One question on one contract: the streamed research and the report (or the quick answer)."""
    view = output.view
    if quick:
        with view.status("Deciding..."):
            answer = api.quick(contract, question, provision)
        if output.given or output.out is not None:
            text = answer.model_dump_json(indent=2) if output.fmt == "json" else answer.to_markdown()
            output.result(text, "Answer")
        else:
            console.print(Markdown(answer.to_markdown()))
        return
    report: Report | None = None
    with view.status("Loading the models and the contract...") as status:
        for item in api.ask_stream(
            contract, question, context=context, instructions=instructions, turns=turns, provision=provision
        ):
            if isinstance(item, Report):
                report = item
            else:
                view.print(_describe(item))
                status.update("Researching..." if item.event in {"start", "question"} else "Writing...")
    assert report is not None
    _show(report, output)


def chat(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or ingested file."),
    thread: str | None = typer.Option(None, "--thread", help="Resume this conversation."),
    list_threads: bool = typer.Option(False, "--list", help="List the conversations on this contract."),
    turns: int | None = _TURNS,
    tenant: str | None = TENANT,
) -> None:
    """Talk about one contract; follow-up questions reuse the conversation's research."""
    from clausewise.api import Clarification, Clausewise

    api = Clausewise(runtime=state_of(ctx).runtime(tenant))
    if list_threads:
        threads = api.threads(contract)
        for info in threads:
            console.print(f"{info.id}  {info.updated_at}  {info.title or '(no question yet)'}")
        if not threads:
            console.print(f"No conversations on {contract} yet: `clausewise chat {contract}` starts one.")
        return
    with api.chat(contract, thread) as conversation:
        console.print(
            f"Chatting about [bold]{conversation.contract_id}[/bold], thread [bold]{conversation.thread_id}"
            f"[/bold] (resume with --thread {conversation.thread_id}). Type /exit to leave, /history to "
            "list the questions answered."
        )
        while True:
            try:
                line = console.input("[bold cyan]you>[/bold cyan] ").strip()
            except (EOFError, KeyboardInterrupt):
                break
            if not line:
                continue
            if line in {"/exit", "/quit"}:
                break
            if line == "/history":
                for asked in conversation.history():
                    console.print(f"- {asked}")
                continue
            items = conversation.ask(line, turns=turns)
            while items is not None:
                follow = None
                for item in items:
                    if isinstance(item, Report):
                        console.print(Markdown(item.to_markdown()))
                    elif isinstance(item, Clarification):
                        console.print(f"[bold yellow]clausewise>[/bold yellow] {item.question}")
                        follow = conversation.reply(console.input("[bold cyan]you>[/bold cyan] ").strip())
                    else:
                        console.print(_describe(item))
                items = follow
    error_console.print(f"Conversation saved as thread {conversation.thread_id}.")


def register(app: typer.Typer) -> None:
    app.command()(ask)
    app.command()(chat)
