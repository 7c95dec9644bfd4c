"""``clausewise worker``: a Celery worker that runs the service's units of work (``jobs.backend =
"celery"``), on this machine or any other that reaches the same Redis and data folder."""

from __future__ import annotations

import os

import typer

from clausewise.cli.app import console, state_of


def worker(
    ctx: typer.Context,
    concurrency: int = typer.Option(
        0, "--concurrency", "-c", help="Processes, each with its own models (0 = one per core)."
    ),
    queues: list[str] = typer.Option(
        [], "--queues", "-Q", help="Queues to take units from (jobs.queue, clausewise); repeatable."
    ),
    threads: int = typer.Option(
        0, "--threads", help="CPU threads of each process's models (0 = the cores shared between processes)."
    ),
    loglevel: str = typer.Option("INFO", "--loglevel", help="Celery's log level."),
) -> None:
    """Run units of the service's jobs (ingest, ask, check, review) from the Redis queue."""
    from clausewise.service.celery_backend import run_worker

    settings = state_of(ctx).settings()
    processes = concurrency or os.cpu_count() or 1
    console.print(
        f"Clausewise worker: {processes} process(es) on {settings.jobs.broker_url}, "
        f"queue(s) {', '.join(queues or [settings.jobs.queue])}; data in {settings.paths.data_dir}"
    )
    run_worker(settings, processes, list(queues), loglevel, threads=threads)


def register(app: typer.Typer) -> None:
    app.command("worker")(worker)
