"""``clausewise models list|check|pull``: what each role runs, proof that it works, and
assembling the embedded models ahead of time."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from clausewise.cli.app import console, state_of
from clausewise.core.backends.llm import model_label
from clausewise.core.backends.model_files import EMBEDDED_MODELS, assemble, is_installed
from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import ROLES, LLMSettings

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

models_app = typer.Typer(help="Language models: list, check, pull.", no_args_is_help=True)


@models_app.command("list")
def list_models(ctx: typer.Context) -> None:
    """Show which model each role uses and the state of the embedded models."""
    runtime = state_of(ctx).runtime()
    roles = Table(title="Language model per role")
    for column in ("role", "backend", "model", "max tokens", "prompt budget"):
        roles.add_column(column)
    for role in ROLES:
        settings = runtime.settings.models.for_role(role)
        roles.add_row(
            role,
            settings.backend,
            model_label(settings),
            str(settings.max_tokens),
            str(settings.max_prompt_tokens),
        )
    console.print(roles)
    embedded = Table(title="Embedded models (from PyPI packages)")
    for column in ("name", "description", "installed", "assembled", "size"):
        embedded.add_column(column)
    for model in EMBEDDED_MODELS.values():
        assembled = (runtime.models_dir / model.file_name).is_file()
        embedded.add_row(
            model.name,
            model.description,
            "yes" if is_installed(model) else "no",
            "yes" if assembled else "no",
            f"{model.size / 1e9:.2f} GB",
        )
    console.print(embedded)


class _Probe(BaseModel):
    answer: str
    confident: bool


def _distinct_settings(runtime: Runtime, roles: list[str]) -> dict[LLMSettings, list[str]]:
    grouped: dict[LLMSettings, list[str]] = {}
    for role in roles:
        grouped.setdefault(runtime.settings.models.for_role(role), []).append(role)
    return grouped


@models_app.command("check")
def check_models(
    ctx: typer.Context,
    role: list[str] = typer.Option(None, "--role", help="Check only these roles (repeatable)."),
) -> None:
    """Load each configured model once and prove it answers (plain and structured)."""
    runtime = state_of(ctx).runtime()
    table = Table(title="Model check")
    for column in (
        "model",
        "roles",
        "load s",
        "answer s",
        "prompt tok",
        "output tok",
        "decode tok/s",
        "structured",
    ):
        table.add_column(column)
    for settings, roles in _distinct_settings(runtime, role or list(ROLES)).items():
        started = time.perf_counter()
        model = runtime.base_model(settings)
        answer = model.invoke([HumanMessage(content="Reply with the single word OK.")])
        seconds = time.perf_counter() - started
        load = getattr(getattr(model, "server", None), "load_seconds", None)
        usage = answer.usage_metadata or {}
        timings = answer.response_metadata.get("timings", {})
        rate = timings.get("predicted_per_second")
        probe = invoke_structured(
            model,
            [
                SystemMessage(content="Answer in JSON with keys answer (string) and confident (boolean)."),
                HumanMessage(content="Which party does a governing-law clause usually favour?"),
            ],
            _Probe,
        )
        table.add_row(
            model_label(settings),
            ", ".join(roles),
            f"{load:.1f}" if load else "-",
            f"{seconds - (load or 0):.2f}",
            str(usage.get("input_tokens", "?")),
            str(usage.get("output_tokens", "?")),
            f"{rate:.1f}" if rate else "-",
            "ok" if probe.answer else "empty",
        )
    console.print(table)


@models_app.command("pull")
def pull_models(
    ctx: typer.Context,
    model: list[str] = typer.Option(
        None, "--model", help="Embedded model name (repeatable); default: the configured one."
    ),
    all_models: bool = typer.Option(False, "--all", help="Every installed embedded model."),
) -> None:
    """Join and verify the embedded model files ahead of time (otherwise done on first use)."""
    runtime = state_of(ctx).runtime()
    if all_models:
        names = [m.name for m in EMBEDDED_MODELS.values() if is_installed(m)]
    else:
        names = model or sorted({runtime.settings.models.for_role(r).embedded_model for r in ROLES})
    for name in names:
        if name not in EMBEDDED_MODELS:
            from clausewise.core.errors import ConfigError

            raise ConfigError(
                f"unknown embedded model {name!r}", hint=f"use one of {', '.join(EMBEDDED_MODELS)}"
            )
        spec = EMBEDDED_MODELS[name]
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        ) as bar:
            task = bar.add_task(f"{name}: join + sha256", total=spec.size)
            path = assemble(spec, runtime.models_dir, progress=lambda n, t=task: bar.advance(t, n))
        console.print(f"[green]✓[/green] {name}: {path} (sha256 verified)")


@models_app.command("serve")
def serve_model(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8080, "--port", help="Port to listen on."),
    api_key_env: str = typer.Option(
        "CLAUSEWISE_LLM_KEY",
        "--api-key-env",
        help="Variable holding the key clients must send (unset: random).",
    ),
    parallel: int = typer.Option(
        1, "--parallel", help="Requests answered at once (each gets the full context)."
    ),
) -> None:
    """Serve the configured language model (models.llm: embedded or gguf) as an OpenAI-compatible
    server, so several processes (service workers) share one loaded model."""
    import os
    import signal
    import threading

    from clausewise.core.backends.llama_http import LlamaHttpServer
    from clausewise.core.backends.llm import gguf_file
    from clausewise.core.errors import ConfigError

    runtime = state_of(ctx).runtime()
    settings = runtime.settings.models.llm
    if settings.backend not in ("embedded", "gguf"):
        raise ConfigError("models serve runs a GGUF model", hint="set models.llm.backend to embedded or gguf")
    server = LlamaHttpServer(
        gguf_file(settings, runtime.models_dir),
        alias=model_label(settings),
        host=host,
        port=port,
        threads=settings.threads,
        context_tokens=settings.context_tokens,
        parallel=parallel,
        api_key=os.environ.get(api_key_env) or None,
    )
    with console.status(f"Loading {model_label(settings)}..."):
        url = server.start()
    key_note = f"key from ${api_key_env}" if os.environ.get(api_key_env) else f"key {server.api_key}"
    console.print(f"Serving {model_label(settings)} at {url} ({key_note}); Ctrl-C stops.")
    console.print(
        f"Point roles at it: --models.llm.backend openai --models.llm.base-url {url} "
        f"--models.llm.model {model_label(settings)} --models.llm.api-key-env {api_key_env}"
    )
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    try:
        while not stopping.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")
