"""``clausewise audit``: a tenant's audit log read, exported as JSON lines, and its hash chain
verified (:mod:`indexes.audit_log`)."""

from __future__ import annotations

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of

audit_app = typer.Typer(
    help="The tenant's audit log: who saw or changed which contract, when (hash-chained).",
    invoke_without_command=True,
)


def _log(ctx: typer.Context, tenant: str | None):  # -> AuditLog
    from indexes.audit_log import audit_log_of

    return audit_log_of(state_of(ctx).runtime(tenant).tenant_dir)


@audit_app.callback()
def show(
    ctx: typer.Context,
    fmt: str = typer.Option("table", "--format", help="table, json (one list) or jsonl (one record a line)."),
    limit: int = typer.Option(100, "--limit", help="The newest this many records (0: all)."),
    tenant: str | None = typer.Option(None, "--tenant", help="Whose log (default: the configured tenant)."),
) -> None:
    """The newest records of the log (``audit verify`` checks the whole chain)."""
    if ctx.invoked_subcommand is not None:
        return
    if fmt not in ("table", "json", "jsonl"):
        raise typer.BadParameter("use table, json or jsonl", param_hint="--format")
    records = list(_log(ctx, tenant).records())
    records = records[-limit:] if limit else records
    if fmt == "jsonl":
        for record in records:
            typer.echo(record.model_dump_json())
        return
    if fmt == "json":
        typer.echo("[" + ",\n".join(r.model_dump_json() for r in records) + "]")
        return
    table = Table(title=f"Audit log ({len(records)} newest records)")
    for column in ("#", "when", "actor", "action", "contract", "version", "clauses"):
        table.add_column(column)
    for r in records:
        clauses = ", ".join(r.clause_ids[:6]) + (" ..." if len(r.clause_ids) > 6 else "")
        table.add_row(str(r.seq), r.at, r.actor, r.action, r.contract_id, str(r.version or ""), clauses)
    console.print(table if records else "The audit log is empty.")


@audit_app.command("verify")
def verify(
    ctx: typer.Context,
    tenant: str | None = typer.Option(None, "--tenant", help="Whose log (default: the configured tenant)."),
) -> None:
    """Check the hash chain: exit 0 when every record is intact and in place, 1 naming the first
    record edited, removed or moved."""
    check = _log(ctx, tenant).verify()
    torn = " (a last line cut by a killed writer is not a record; the next write removes it)"
    if check.valid:
        console.print(f"The audit log is intact: {check.records} records{torn if check.torn_tail else ''}.")
        return
    console.print(
        f"[red]The audit log is broken at line {check.broken_at}[/red]: {check.reason} "
        f"({check.records} records before it are intact)."
    )
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
