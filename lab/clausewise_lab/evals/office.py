"""Headless LibreOffice, as the benchmarks and tests open Word files with it: found on the PATH,
run with a home of its own in the folder it writes to, bounded in time."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def office_program() -> str | None:
    """LibreOffice's program, or None when it is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def converted(data: bytes, office: str, folder: Path, to: str, name: str = "document") -> Path | None:
    """The DOCX ``data`` written in ``folder`` as ``name``.docx and converted by LibreOffice
    (``office``) to the filter ``to`` ("odt", "txt:Text"): the converted file's path, or None when
    LibreOffice could not open it."""
    source = folder / f"{name}.docx"
    source.write_bytes(data)
    done = subprocess.run(
        [office, "--headless", "--convert-to", to, "--outdir", str(folder), str(source)],
        capture_output=True,
        timeout=180,
        check=False,
        env={"HOME": str(folder), "PATH": "/usr/bin:/bin"},
    )
    result = folder / f"{name}.{to.split(':')[0]}"
    return result if done.returncode == 0 and result.is_file() else None
