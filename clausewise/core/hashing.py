"""The sha256 of a file, as the product pins and compares it: a contract's bytes (its ingest
fingerprint and id), the model files verified before they load, the models the lab ships."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of the file at ``path``, read in blocks of 1 MiB (a model file is hundreds of
    megabytes, never read whole)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
