"""Shared fixtures. Every test runs with the network closed: only loopback and Unix sockets work."""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"

# Set before any model library is imported: a hub name must fail fast instead of retrying.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# The command line's consoles read the terminal's width when first imported, which on a test
# worker may happen in any module: one width for the whole run keeps their tables alike.
os.environ.setdefault("COLUMNS", "200")
#: One folder for the embedded language models of every test's data folder (and of the servers
#: and workers the tests start): each model is joined from its parts and verified once, not once
#: per test (0.5 to 1.1 GB each time). Kept between runs, ignored by git.
MODELS_DIR_VARIABLE = "CLAUSEWISE_PATHS__MODELS_DIR"
os.environ.setdefault(MODELS_DIR_VARIABLE, str(REPO / ".test-models"))


def without_clausewise_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every CLAUSEWISE_ variable for one test (its settings are the defaults and its
    own), but the shared models folder."""
    for name in list(os.environ):
        if name.startswith("CLAUSEWISE_") and name != MODELS_DIR_VARIABLE:
            monkeypatch.delenv(name)


class NetworkBlocked(RuntimeError):
    """A test tried to reach a non-loopback address."""


def _is_loopback(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths
    host = str(address[0])
    if host in {"localhost", ""}:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost would need DNS


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_loopback(address):
        raise NetworkBlocked(f"tests may not open network connections (tried {address!r})")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_loopback(address):
        raise NetworkBlocked(f"tests may not open network connections (tried {address!r})")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: object, *args: object, **kwargs: object):
    if host not in (None, "localhost") and not _is_loopback((host,)):
        raise NetworkBlocked(f"tests may not resolve host names (tried {host!r})")
    return _real_getaddrinfo(host, *args, **kwargs)


def pytest_configure(config: pytest.Config) -> None:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo  # type: ignore[assignment]


# --- the run's order: the longest modules first -----------------------------------------------

#: Modules that take over ten seconds, the longest first (``pytest --durations=0``, stop 72, the
#: 2-core machine): live servers, Celery workers, browsers, real models, the evaluation gate.
#: They are marked ``slow`` (``make test-fast`` leaves them out) and run first, so that two test
#: workers (``pytest -n 2 --dist loadfile``) do not end with one long module left to one of them.
SLOW_MODULES = (
    "test_scale_celery",
    "test_eval_gate",
    "test_room_bench",
    "test_service_hostile",
    "test_room_celery",
    "test_cli",
    "test_web",
    "test_checks",
    "test_serve_bench",
    "test_service_restart",
    "test_checks_real",
    "test_service_playbooks",
    "test_qa_real",
    "test_retrieval",
    "test_decider",
    "test_tracing",
    "test_store",
    "test_room",
    "test_openai_backend_real",
    "test_qa_evidence_bench",
    "test_service_real",
    "test_ingest_bench",
    "test_retrieval_bench",
    "test_review",
    "test_embeddings",
    "test_service",
    "test_finishing",
    "test_service_faults",
    "test_room_service",
    "test_playbook",
    "test_llm_real",
    "test_service_audit",
    "test_room_web",
    "test_page_images",
    "test_round_reply",
    "test_redline_drafter",
    "test_round_assessment",
    "test_playbook_web",
    "test_logging",
    "test_ocr",
    "test_service_tenants",
    "test_rounds_web",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow modules' tests ``slow`` and run those modules first, longest first; the
    others keep their order. Every test worker computes the same order from the same list."""
    rank = {name: number for number, name in enumerate(SLOW_MODULES)}
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in rank:
            item.add_marker(pytest.mark.slow)

    def place(item: pytest.Item) -> int:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module is not None else ""
        return rank.get(module, len(rank))

    items.sort(key=place)  # stable: tests keep their order within a module


# --- data --------------------------------------------------------------------------------------


def bench_data_root() -> Path | None:
    configured = os.environ.get("CLAUSEWISE_BENCH_DATA")
    candidate = Path(configured) if configured else REPO.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def bench_data() -> Path:
    root = bench_data_root()
    if root is None:
        pytest.skip(
            "benchmark data folder not found: set CLAUSEWISE_BENCH_DATA to a folder with the layout of "
            "../shared/data (ContractNLI, LegalBench-RAG, CUAD, ACORD) to run this test"
        )
    return root


@pytest.fixture
def tesseract() -> str:
    path = shutil.which("tesseract")
    if path is None:
        pytest.skip("tesseract is not installed (apt-get install tesseract-ocr); `make test` installs it")
    return path


# --- settings and runtime ----------------------------------------------------------------------


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def settings(data_dir: Path, monkeypatch: pytest.MonkeyPatch):  # clausewise Settings
    without_clausewise_environment(monkeypatch)
    from clausewise.core.config import load_settings

    return load_settings(overrides={"paths": {"data_dir": str(data_dir)}})


@pytest.fixture(scope="session")
def hub():  # the models of the test session, each loaded once, as a server process shares them
    from clausewise.runtime import ModelHub

    return ModelHub()


@pytest.fixture(scope="module", autouse=True)
def language_models_unloaded_after_each_module(hub) -> Iterator[None]:
    """The session's classifiers and embedders stay loaded; its GGUF models (a gigabyte or more
    each, one per context size a module asks for) are freed when a module ends, so the suite's
    memory does not grow with every module that used one."""
    yield
    hub.llama_servers.unload_all()


@pytest.fixture(scope="session")
def embedder(hub):  # the real default embedder, loaded once for the session
    from clausewise.core.config import load_settings

    return hub.embedder(load_settings())


@pytest.fixture
def runtime_for(hub):
    """A runtime on given settings that shares the session's models."""
    from clausewise.runtime import Runtime

    def _runtime(settings, **options):
        return Runtime(settings, hub=hub, **options)

    return _runtime


@pytest.fixture(scope="module")
def services_example(tmp_path_factory: pytest.TempPathFactory, embedder):
    """Settings and the open index of the example services agreement, ingested once per module."""
    from tests.helpers import ingested_example

    settings, index = ingested_example(
        tmp_path_factory.mktemp("services"), embedder, "services-agreement.txt"
    )
    yield settings, index
    index.close()


@pytest.fixture
def unanswering_researcher(services_example, embedder):
    """The services agreement's index, a Researcher on it whose answerer has nothing to add, and
    that answerer: a planned turn must answer without asking it (its ``calls`` stay empty)."""
    from tests.helpers import scripted_researcher

    settings, index = services_example
    nothing = {"answer": "Nothing more.", "addressed": False, "citations": []}
    researcher, answerer = scripted_researcher(settings, index, embedder, nothing)
    return index, researcher, answerer


def research_turn(researcher, question: str, *, context: str = "", serves: str = "", read=()):
    """One research turn through the research subgraph, as the question-answering graph runs it."""
    from graphs.research_graph import ResearchContext, build_research_graph

    out = build_research_graph().invoke(
        {"question": question, "context": context, "serves": serves, "read": list(read)},
        context=ResearchContext(researcher),
    )
    return out["result"]


@pytest.fixture
def store(settings):
    from indexes.store import ContractStore

    return ContractStore(settings)


@pytest.fixture
def archivist(settings, store, embedder):
    from agents.archivist import Archivist

    return Archivist(settings, store, embedder)


@pytest.fixture
def nda_text() -> str:
    return (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")


@pytest.fixture
def msa_text() -> str:
    return (EXAMPLES / "services-agreement.txt").read_text(encoding="utf-8")


@pytest.fixture
def copy_example(tmp_path: Path) -> Iterator:
    """Copy an example file into a temp folder (tests may modify or corrupt their copy)."""

    def _copy(name: str, new_name: str | None = None) -> Path:
        target = tmp_path / "inputs" / (new_name or name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(EXAMPLES / name, target)
        return target

    yield _copy


@contextmanager
def ingested_sample(folder: Path, embedder, overrides: dict | None = None, name: str = "mutual-nda.txt"):
    """Settings on ``folder`` (plus ``overrides``) and the open index of an example contract,
    ingested with the real embedder: what module fixtures of agent tests start from."""
    from agents.archivist import Archivist
    from clausewise.core.config import load_settings
    from indexes.store import ContractStore

    settings = load_settings(overrides={"paths": {"data_dir": str(folder)}, **(overrides or {})})
    store = ContractStore(settings)
    Archivist(settings, store, embedder).ingest(EXAMPLES / name)
    index = store.open(Path(name).stem)
    try:
        yield settings, index
    finally:
        index.close()
