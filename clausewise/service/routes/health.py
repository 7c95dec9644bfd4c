"""``/healthz`` (the process answers) and ``/readyz`` (its models can load and its store is
writable: what a load balancer or ``docker compose`` health check asks)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response

from clausewise.core.backends.model_files import EMBEDDED_MODELS, is_installed
from clausewise.core.config import ROLES, Settings
from clausewise.core.resources import asset_dir
from clausewise.service.auth import CurrentService
from clausewise.service.keys import service_dir
from clausewise.service.schemas import Readiness

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


def _model_checks(settings: Settings) -> dict[str, str]:
    checks: dict[str, str] = {}
    for role in ROLES:
        llm = settings.models.for_role(role)
        if llm.backend == "embedded":
            ok = is_installed(EMBEDDED_MODELS[llm.embedded_model])
            checks[f"model:{role}"] = "ok" if ok else f"{llm.embedded_model} packages are not installed"
        elif llm.backend == "gguf":
            ok = llm.gguf_path is not None and llm.gguf_path.expanduser().is_file()
            name = llm.gguf_path.name if llm.gguf_path is not None else "(none set)"
            missing = f"the GGUF file {name} is missing (models.llm.gguf_path)"
            checks[f"model:{role}"] = "ok" if ok else missing
        else:
            checks[f"model:{role}"] = "ok" if llm.base_url else "no base_url for the model server"
    for asset, file in (("reranker", "model.onnx"), ("nli", "model.onnx"), ("provisions", "head.npz")):
        checks[f"asset:{asset}"] = (
            "ok" if (asset_dir(asset) / file).is_file() else "missing: reinstall clausewise"
        )
    return checks


@router.get("/readyz", response_model=Readiness)
def readyz(service: CurrentService, response: Response) -> Readiness:
    """The models can be loaded (their files are installed) and the data folder is writable."""
    checks = _model_checks(service.settings)
    probe = service_dir(service.settings) / f".probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.parent.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"ok")
        probe.unlink()
        checks["store"] = "ok"
    except OSError as error:
        checks["store"] = f"not writable: {error.strerror}"  # the reason, never the folder
    ready = all(value == "ok" for value in checks.values())
    response.status_code = 200 if ready else 503
    return Readiness(ready=ready, checks=checks)
