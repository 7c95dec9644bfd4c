"""The layering holds: import-linter's contracts in pyproject.toml (layers from clausewise.core up
to the entry points, product code free of benchmark and training code, no import circles), and
library code that prints nothing."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

LIBRARY = (
    "clausewise/core",
    "indexes",
    "tools",
    "agents",
    "graphs",
    "clausewise/api.py",
    "clausewise/runtime.py",
)


def test_the_import_contracts_are_kept() -> None:
    linter = Path(sys.executable).parent / "lint-imports"  # installed with the dev extra
    result = subprocess.run(
        [str(linter), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_library_code_never_prints() -> None:
    printing = []
    for folder in LIBRARY:
        path = REPO / folder
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                    printing.append(f"{file.relative_to(REPO)}:{node.lineno}")
    assert printing == []
