"""``clausewise serve`` (the HTTP API and the web page) and ``clausewise keys create|list|revoke``."""

from __future__ import annotations

import ipaddress

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of
from clausewise.core.errors import ConfigError

keys_app = typer.Typer(help="API keys of the server: each maps to a tenant.", no_args_is_help=True)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    ctx: typer.Context,
    host: str | None = typer.Option(None, "--host", help="Address to listen on (service.host, 127.0.0.1)."),
    port: int | None = typer.Option(None, "--port", help="Port (service.port, 8000; 0 = any free port)."),
    workers_in_process: int | None = typer.Option(
        None, "--workers-in-process", help="Jobs run at once (service.workers_in_process, 1)."
    ),
    insecure_no_auth: bool = typer.Option(
        False,
        "--insecure-no-auth",
        help="Listen beyond loopback although no API key exists (anyone may call).",
    ),
) -> None:
    """Serve the HTTP API (docs at /docs), the OpenAI-compatible chat, MCP at /mcp."""
    import uvicorn

    from clausewise.service.app import create_app
    from clausewise.service.keys import KeyStore

    state = state_of(ctx)
    chosen = {
        k: v
        for k, v in {"host": host, "port": port, "workers_in_process": workers_in_process}.items()
        if v is not None
    }
    if chosen:
        state.overrides = {**state.overrides, "service": {**state.overrides.get("service", {}), **chosen}}
    settings = state.settings()
    service = settings.service
    keys = KeyStore.of(settings)
    if not _loopback(service.host) and not keys.active() and not insecure_no_auth:
        raise ConfigError(
            f"no API key exists: anyone who reaches {service.host} could read every contract",
            hint="create a key first (`clausewise keys create --tenant T`), listen on 127.0.0.1, "
            "or pass --insecure-no-auth",
        )
    access = "API keys required" if keys.active() else "single-user, no key"
    console.print(
        f"Clausewise on http://{service.host}:{service.port} (docs /docs, MCP /mcp); {access}; "
        f"data in {settings.paths.data_dir}"
    )
    uvicorn.run(create_app(settings), host=service.host, port=service.port, log_level="warning")


def _audit_key(ctx: typer.Context, tenant: str, action: str, key_id: str) -> None:
    """A key change, in the audit log of the tenant the key reaches."""
    from indexes.audit_log import audit_log_of

    audit_log_of(state_of(ctx).runtime(tenant).tenant_dir).append("cli", action, detail=f"key {key_id}")  # type: ignore[arg-type]


@keys_app.command("create")
def create_key(
    ctx: typer.Context,
    tenant: str = typer.Option(..., "--tenant", help="The tenant whose contracts the key reaches."),
    name: str = typer.Option("", "--name", help="A note: who or what uses the key."),
    admin: bool = typer.Option(False, "--admin", help="It may also read the tenant's audit log."),
) -> None:
    """Create an API key (printed once; store it safely)."""
    from clausewise.service.keys import KeyStore

    settings = state_of(ctx).settings()
    info, key = KeyStore.of(settings).create(tenant, name, admin=admin)
    _audit_key(ctx, info.tenant, "key_created", info.id)
    console.print(f"Key {info.id} for tenant [bold]{info.tenant}[/bold] (shown once):")
    console.print(key, markup=False, highlight=False, soft_wrap=True)


@keys_app.command("list")
def list_keys(ctx: typer.Context) -> None:
    """List the keys (never their secrets)."""
    from clausewise.service.keys import KeyStore

    settings = state_of(ctx).settings()
    keys = KeyStore.of(settings).list()
    table = Table(title="API keys")
    for column in ("id", "tenant", "name", "created", "revoked"):
        table.add_column(column)
    for key in keys:
        table.add_row(key.id, key.tenant, key.name, key.created_at, key.revoked_at or "")
    console.print(table if keys else "No API keys: the server is single-user (loopback only).")


@keys_app.command("revoke")
def revoke_key(
    ctx: typer.Context, key_id: str = typer.Argument(..., help="The key's id (see keys list).")
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    from clausewise.service.keys import KeyStore

    settings = state_of(ctx).settings()
    info = KeyStore.of(settings).revoke(key_id)
    _audit_key(ctx, info.tenant, "key_revoked", info.id)
    console.print(f"Revoked key {info.id} of tenant {info.tenant}.")


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.add_typer(keys_app, name="keys")
