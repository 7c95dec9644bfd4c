"""``clausewise contracts list|show|delete`` and ``clausewise tree CONTRACT``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table
from rich.tree import Tree

from clausewise.cli.app import console, state_of
from clausewise.cli.options import TENANT
from clausewise.core.domain import ClauseNode, ClauseTree, NodeKind
from indexes.audit_log import AuditAction
from indexes.store import ContractStore

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

contracts_app = typer.Typer(help="List, show and delete ingested contracts.", no_args_is_help=True)


@contracts_app.command("list")
def list_contracts(ctx: typer.Context, tenant: str | None = TENANT) -> None:
    """List the tenant's contracts."""
    runtime = state_of(ctx).runtime(tenant)
    manifests = runtime.store.manifests()
    if not manifests:
        console.print(
            f"No contracts in tenant [bold]{runtime.store.tenant}[/bold] yet: `clausewise ingest FILE`."
        )
        return
    table = Table(title=f"Contracts of tenant {runtime.store.tenant}")
    for column in (
        "id",
        "title",
        "parties",
        "file",
        "version",
        "pages",
        "nodes",
        "chunks",
        "structure",
        "ingested",
    ):
        table.add_column(column, overflow="fold")
    for m in manifests:
        kept = len(runtime.store.versions(m.contract_id))
        table.add_row(
            m.contract_id,
            m.title,
            "; ".join(m.parties),
            m.file_name,
            f"{m.version} (of {kept})" if kept > 1 else str(m.version),
            str(m.pages),
            str(m.counts.get("nodes", 0)),
            str(m.counts.get("chunks", 0)),
            m.structure,
            m.created_at,
        )
    console.print(table)


_VERSION = typer.Option(None, "--version", min=1, help="A kept older version (default: the live one).")


@contracts_app.command("show")
def show_contract(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or file."),
    version: int | None = _VERSION,
    tenant: str | None = TENANT,
) -> None:
    """Show a contract's manifest, its versions, definitions and cross-reference summary."""
    runtime = state_of(ctx).runtime(tenant)
    index = runtime.store.open(contract, version)
    m = index.manifest
    _audit(
        runtime, "read", m.contract_id, version=m.version, detail="its details (clausewise contracts show)"
    )
    table = Table(show_header=False, title=f"{m.contract_id}, version {m.version}")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    rows = [
        ("title", m.title or "(none found)"),
        ("parties", "; ".join(m.parties) or "(none found)"),
        ("file", m.file_name),
        ("source", m.source_path),
        ("type", m.file_type),
        ("sha256", m.content_sha256),
        ("pages", str(m.pages)),
        ("characters", f"{m.characters:,}"),
        ("structure", m.structure),
        ("OCR pages", ", ".join(map(str, m.ocr_pages)) or "none"),
        ("embedding model", m.embedding_model),
        ("ingested", f"{m.created_at} by clausewise {m.clausewise_version}"),
    ]
    rows += [(name.replace("_", " "), str(value)) for name, value in m.counts.items()]
    rows += [("timings (s)", ", ".join(f"{k} {v}" for k, v in m.timings.items()))]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    if index.definitions:
        terms = ", ".join(f"{d.term} ({d.node_id})" for d in index.definitions[:25])
        more = f" and {len(index.definitions) - 25} more" if len(index.definitions) > 25 else ""
        console.print(f"[bold]Defined terms:[/bold] {terms}{more}", soft_wrap=True)
    unresolved = [r.text for r in index.cross_references if r.target is None]
    if unresolved:
        console.print(
            f"[bold]Unresolved references:[/bold] {', '.join(sorted(set(unresolved))[:25])}", soft_wrap=True
        )
    for warning in m.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    console.print(versions_table(runtime.store, m.contract_id))


def versions_table(store: ContractStore, contract_id: str) -> Table:
    """Every kept version of the contract, oldest first; the live one marked."""
    live = store.manifest(contract_id)
    table = Table(title=f"Versions of {contract_id}")
    for column in ("version", "live", "file", "sha256", "pages", "characters", "ingested"):
        table.add_column(column, overflow="fold")
    for _path, v in store.versions(contract_id):
        table.add_row(
            str(v.version),
            "live" if live is not None and v.version == live.version else "",
            v.file_name,
            v.content_sha256[:12],
            str(v.pages),
            f"{v.characters:,}",
            v.created_at,
        )
    return table


@contracts_app.command("delete")
def delete_contract(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or file."),
    version: int | None = typer.Option(
        None, "--version", min=1, help="Delete only this older version (never the live one alone)."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    tenant: str | None = TENANT,
) -> None:
    """Delete a contract with every version and index, or one older version (nothing else ever
    deletes a version: a new one keeps the old ones)."""
    runtime = state_of(ctx).runtime(tenant)
    contract_id = runtime.store.resolve(contract)
    kept = len(runtime.store.versions(contract_id))
    what = (
        f"version {version} of contract {contract_id!r}"
        if version
        else f"contract {contract_id!r}, its {kept} version(s) and all its indexes"
    )
    if not yes and not typer.confirm(f"Delete {what}?"):
        raise typer.Exit(code=1)
    if version is None:
        runtime.store.delete(contract_id)
    else:
        runtime.store.delete_version(contract_id, version)
    _audit(runtime, "delete", contract_id, version=version, detail=what)
    console.print(f"Deleted {what}.")


def _audit(runtime: Runtime, action: AuditAction, contract_id: str, **fields: Any) -> None:
    """The audit log's record of what this command did, under the local user's name."""
    from clausewise.api import Clausewise

    Clausewise(runtime=runtime).audit(action, contract_id, **fields)


def _label(node: ClauseNode, text: str) -> str:
    pages = f"p.{node.pages[0]}" if len(node.pages) == 1 else f"pp.{node.pages[0]}-{node.pages[-1]}"
    if node.title:
        title = node.title
    else:
        snippet = " ".join(text[node.start : min(node.end, node.start + 80)].split())
        title = f"[dim]{snippet}{'…' if node.end - node.start > 80 else ''}[/dim]"
    return (
        f"[bold cyan]{node.id}[/bold cyan] [magenta]{node.kind.value}[/magenta] {title} [dim]({pages})[/dim]"
    )


def render_tree(
    tree: ClauseTree, text: str, depth: int | None, sentences: bool, root_id: str | None = None
) -> Tree:
    root = tree.node(root_id) if root_id else tree.root
    view = Tree(_label(root, text) if root_id else f"[bold]{root.title}[/bold] ({tree.structure} structure)")
    stack = [(root, view, 0)]
    while stack:
        node, branch, level = stack.pop()
        if depth is not None and level >= depth:
            continue
        children = [c for c in tree.children(node.id) if sentences or c.kind != NodeKind.SENTENCE]
        rendered = [(child, branch.add(_label(child, text))) for child in children]
        stack.extend((child, sub, level + 1) for child, sub in reversed(rendered))
    return view


def tree_command(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or file."),
    depth: int | None = typer.Option(None, "--depth", min=1, help="Show only this many levels."),
    sentences: bool = typer.Option(False, "--sentences", help="Also show sentence leaves."),
    node: str | None = typer.Option(None, "--node", help="Show only the subtree of this node id."),
    tenant: str | None = TENANT,
) -> None:
    """Print the clause tree: ids (legal paths), kinds, titles and pages."""
    runtime = state_of(ctx).runtime(tenant)
    index = runtime.store.open(contract)
    tree = index.tree
    if node is not None and node not in tree.nodes:
        from clausewise.core.errors import ContractNotFound

        raise ContractNotFound(
            f"no node {node!r} in {index.contract_id}", hint="run `clausewise tree` without --node"
        )
    console.print(render_tree(tree, index.document.text, depth, sentences, node))
    _audit(
        runtime,
        "read",
        index.contract_id,
        version=index.manifest.version,
        detail="its clause tree (clausewise tree)",
    )


def register(app: typer.Typer) -> None:
    app.add_typer(contracts_app, name="contracts")
    app.command("tree")(tree_command)
