"""Joining the embedded model's chunks: checksum verified once, a mismatch refused."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from clausewise.core.backends import model_files
from clausewise.core.backends.model_files import EmbeddedModel, assemble, is_installed
from clausewise.core.errors import ModelIntegrityError, ModelUnavailable


def _spec(package: str, version: str, parts: int, size: int, sha256: str) -> EmbeddedModel:
    """A model in ``parts`` chunks, each in package ``{package}_part{n}`` (distribution
    ``{package}-part{n}``, underscores as dashes); the file's ``size`` and checksum as given."""
    return EmbeddedModel(
        name=package,
        description="test",
        file_name=f"{package}.gguf",
        package=f"{package}_part{{n}}",
        distribution=package.replace("_", "-") + "-part{n}",
        version=version,
        parts=parts,
        size=size,
        sha256=sha256,
    )


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[EmbeddedModel, list[Path]]:
    """Three importable packages holding chunks of a small 'model' file."""
    root = tmp_path / "site"
    chunks = [b"GGUF" + b"a" * 1000, b"b" * 700, b"c" * 3]
    parts = []
    for n, chunk in enumerate(chunks, start=1):
        data = root / f"fakemodel_part{n}" / "data"
        data.mkdir(parents=True)
        (data.parent / "__init__.py").write_text("")
        (data / f"part{n:02d}.bin").write_bytes(chunk)
        parts.append(data / f"part{n:02d}.bin")
    monkeypatch.syspath_prepend(str(root))
    whole = b"".join(chunks)
    spec = _spec("fakemodel", "1.0", 3, len(whole), hashlib.sha256(whole).hexdigest())
    yield spec, parts
    for n in range(1, 4):
        sys.modules.pop(f"fakemodel_part{n}", None)


def test_parts_are_joined_verified_and_reused(
    fake_model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _ = fake_model
    progressed: list[int] = []
    path = assemble(spec, tmp_path / "models", progress=progressed.append)
    assert path.read_bytes().startswith(b"GGUF") and path.stat().st_size == spec.size
    assert sum(progressed) == spec.size
    assert is_installed(spec)

    def no_rehash(*args: object, **kwargs: object) -> None:
        raise AssertionError("a verified file must not be joined again")

    monkeypatch.setattr(model_files.hashlib, "sha256", no_rehash)
    assert assemble(spec, tmp_path / "models") == path


def test_a_changed_file_is_verified_again(fake_model, tmp_path: Path) -> None:
    spec, _ = fake_model
    path = assemble(spec, tmp_path / "models")
    path.write_bytes(b"tampered")
    assert assemble(spec, tmp_path / "models").read_bytes().startswith(b"GGUF")  # rebuilt from the parts


def test_checksum_mismatch_is_refused_and_nothing_is_left(fake_model, tmp_path: Path) -> None:
    spec, parts = fake_model
    parts[1].write_bytes(b"x" * 700)  # same size, different bytes
    with pytest.raises(ModelIntegrityError, match="does not match its pinned checksum") as raised:
        assemble(spec, tmp_path / "models")
    assert "pip install --force-reinstall 'fakemodel-part1==1.0'" in str(raised.value)
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_package_names_the_install(tmp_path: Path) -> None:
    spec = _spec("no_such_pkg", "2.0", 2, 1, "0")
    assert not is_installed(spec)
    with pytest.raises(ModelUnavailable, match="no-such-pkg-part1"):
        assemble(spec, tmp_path)
