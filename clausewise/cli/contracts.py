"""``clausewise contracts list|show|delete`` and ``clausewise tree CONTRACT``."""

from __future__ import annotations

import typer
from rich.table import Table
from rich.tree import Tree

from clausewise.cli.app import console, state_of
from clausewise.core.domain import ClauseNode, ClauseTree, NodeKind

contracts_app = typer.Typer(help="List, show and delete ingested contracts.", no_args_is_help=True)

_TENANT = typer.Option(None, "--tenant", help="Tenant whose contracts to use.")


@contracts_app.command("list")
def list_contracts(ctx: typer.Context, tenant: str | None = _TENANT) -> None:
    """List the tenant's contracts."""
    runtime = state_of(ctx).runtime(tenant)
    manifests = runtime.store.manifests()
    if not manifests:
        console.print(
            f"No contracts in tenant [bold]{runtime.store.tenant}[/bold] yet: `clausewise ingest FILE`."
        )
        return
    table = Table(title=f"Contracts of tenant {runtime.store.tenant}")
    for column in ("id", "file", "pages", "nodes", "chunks", "structure", "ingested"):
        table.add_column(column, overflow="fold")
    for m in manifests:
        table.add_row(
            m.contract_id,
            m.file_name,
            str(m.pages),
            str(m.counts.get("nodes", 0)),
            str(m.counts.get("chunks", 0)),
            m.structure,
            m.created_at,
        )
    console.print(table)


@contracts_app.command("show")
def show_contract(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or file."),
    tenant: str | None = _TENANT,
) -> None:
    """Show a contract's manifest, definitions and cross-reference summary."""
    runtime = state_of(ctx).runtime(tenant)
    index = runtime.store.open(contract)
    m = index.manifest
    table = Table(show_header=False, title=m.contract_id)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    rows = [
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


@contracts_app.command("delete")
def delete_contract(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or file."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    tenant: str | None = _TENANT,
) -> None:
    """Delete a contract and every index built for it."""
    runtime = state_of(ctx).runtime(tenant)
    contract_id = runtime.store.resolve(contract)
    if not yes and not typer.confirm(f"Delete contract {contract_id!r} and all its indexes?"):
        raise typer.Exit(code=1)
    runtime.store.delete(contract_id)
    console.print(f"Deleted [bold]{contract_id}[/bold].")


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
    tenant: str | None = _TENANT,
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


def register(app: typer.Typer) -> None:
    app.add_typer(contracts_app, name="contracts")
    app.command("tree")(tree_command)
