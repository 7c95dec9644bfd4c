"""Where the files shipped inside the package live: shipped models, presets and built-in suites.

One module knows the layout of the package data, so code in any layer asks for "the NLI model's
folder" or "the nda suite" instead of spelling paths into ``clausewise/core``.

    clausewise/core/assets/<model>/   shipped models (reranker, nli, provisions, minilm tokenizer)
    clausewise/core/presets/*.toml    named settings presets
    clausewise/core/suites/*.yaml     built-in hypothesis suites, provision lists and the lexicon
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

_PACKAGE = "clausewise.core"


def _data(folder: str) -> Traversable:
    return resources.files(_PACKAGE) / folder


def asset_dir(model: str) -> Path:
    """The folder of a shipped model ("reranker", "nli", "provisions", "minilm")."""
    return Path(str(_data("assets") / model))


def preset_file(name: str) -> Traversable:
    return _data("presets") / f"{name}.toml"


def preset_names() -> list[str]:
    return sorted(
        p.name.removesuffix(".toml") for p in _data("presets").iterdir() if p.name.endswith(".toml")
    )


def suite_file(name: str) -> Traversable:
    """A built-in suite, provision list or lexicon by name ("nda", "cuad", "legal-terms")."""
    return _data("suites") / f"{name}.yaml"
