"""What every route, job and tool of one server process shares: the settings, the models
(loaded lazily and once, shared by every tenant), the API keys, the job store and the runner."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from clausewise.core.config import Settings, with_overrides
from clausewise.runtime import ModelHub, Runtime
from clausewise.service.audit import record_job
from clausewise.service.jobs import Job, JobStore
from clausewise.service.keys import KeyStore, service_dir
from clausewise.service.page_images import PageImages
from clausewise.service.runner import Executor, LocalExecutor, LocalRunner
from clausewise.service.uploads import discard_job_uploads

RuntimeFactory = Callable[[Settings, ModelHub], Runtime]
T = TypeVar("T")
#: Threads reading uploaded files in the request (the quick refusals): their own, few, so files
#: built to be slow to read cannot take the threads every other request polls and reads with.
UPLOAD_CHECK_THREADS = 2


def default_runtime(settings: Settings, hub: ModelHub) -> Runtime:
    return Runtime(settings, hub=hub)


@dataclass
class Service:
    """What the routes share: built once by :func:`create_app`."""

    settings: Settings
    hub: ModelHub = field(default_factory=ModelHub)
    runtime_factory: RuntimeFactory = default_runtime
    keys: KeyStore = field(init=False)
    jobs: JobStore = field(init=False)
    runner: LocalRunner = field(init=False)
    upload_checks: ThreadPoolExecutor = field(init=False)
    page_images: PageImages = field(init=False)

    def __post_init__(self) -> None:
        self.keys = KeyStore.of(self.settings)
        self.jobs = JobStore(service_dir(self.settings) / "jobs.sqlite")
        local = LocalExecutor(self.runtime)
        executor: Executor = local
        threads = self.settings.service.workers_in_process
        if self.settings.jobs.backend == "celery":
            from clausewise.service.celery_backend import CeleryExecutor

            executor = CeleryExecutor(self.settings, local)
            threads = self.settings.jobs.concurrent_jobs  # they wait on the workers, not on a model
        self.runner = LocalRunner(self.jobs, executor, threads, on_end=self.job_ended)
        self.upload_checks = ThreadPoolExecutor(UPLOAD_CHECK_THREADS, thread_name_prefix="upload-check")
        served = self.settings.service
        self.page_images = PageImages(
            served.page_image_processes, served.page_image_cpu_seconds, served.page_image_memory_mb
        )

    async def check_upload(self, check: Callable[..., T], *args: Any) -> T:
        """Run an upload's check on the upload-check threads (not the default pool)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.upload_checks, functools.partial(check, *args))

    def close(self) -> None:
        self.upload_checks.shutdown(wait=False, cancel_futures=True)
        self.page_images.close()
        self.jobs.close()

    def job_ended(self, job: Job) -> None:
        """A job has ended: its uploads go, and its work goes in the tenant's audit log."""
        self.clear_uploads(job)
        ended = self.jobs.get(job.tenant, job.id)  # (``job`` is as it was claimed: running)
        record_job(self.runtime(job.tenant).tenant_dir, ended)

    def clear_uploads(self, job: Job) -> None:
        """Delete the uploads of a job that has ended (or was cancelled before it ran)."""
        discard_job_uploads(self.runtime(job.tenant), job.request)

    def runtime(self, tenant: str) -> Runtime:
        """A runtime for one request or job of ``tenant``: its own stores, ledger and caches over
        the process's shared models."""
        settings = self.settings
        if tenant != settings.paths.tenant:
            settings = with_overrides(settings, {"paths": {"tenant": tenant}})
        return self.runtime_factory(settings, self.hub)
