from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.cli.overrides import setting_keys, split_overrides
from clausewise.core.config import available_presets, load_settings
from clausewise.core.errors import ConfigError


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("CLAUSEWISE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no stray clausewise.toml


def test_defaults_and_presets_are_layered() -> None:
    default = load_settings()
    fast = load_settings(preset="fast")
    assert {"default", "fast", "thorough"} <= set(available_presets())
    assert default.parsing.ocr_dpi == 300
    assert fast.parsing.ocr_dpi == 200
    assert fast.interrogation.max_turns == 1 and not fast.interrogation.repair
    # untouched sections keep their defaults
    assert fast.chunking == default.chunking


def test_precedence_file_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "settings.toml"
    config.write_text(
        "[retrieval]\nrrf_k = 10\ntop_k = 4\n[interrogation]\nmax_turns = 4\n", encoding="utf-8"
    )
    monkeypatch.setenv("CLAUSEWISE_RETRIEVAL__RRF_K", "20")
    settings = load_settings(preset="fast", config_file=config, overrides={"retrieval": {"top_k": 7}})
    assert settings.retrieval.rrf_k == 20  # env beats file
    assert settings.retrieval.top_k == 7  # CLI override beats everything
    assert settings.interrogation.max_turns == 4  # file beats preset
    assert settings.retrieval.bm25_top_k == 50  # preset value survives


def test_shortcut_variables_and_working_directory_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUSEWISE_BENCH_DATA", "/data/bench")
    monkeypatch.setenv("CLAUSEWISE_DATA_DIR", str(tmp_path / "store"))
    (tmp_path / "clausewise.toml").write_text('[paths]\ntenant = "acme"\n', encoding="utf-8")
    settings = load_settings()
    assert settings.paths.bench_data == Path("/data/bench")
    assert settings.paths.data_dir == tmp_path / "store"
    assert settings.paths.tenant == "acme"


def test_invalid_values_and_names_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="max_turns"):
        load_settings(overrides={"interrogation": {"max_turns": 0}})
    with pytest.raises(ConfigError, match="unknown preset"):
        load_settings(preset="turbo")
    broken = tmp_path / "broken.toml"
    broken.write_text("[retrieval\nrrf_k = ", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(config_file=broken)
    with pytest.raises(ConfigError, match="tenant"):
        load_settings(overrides={"paths": {"tenant": "../escape"}})


def test_fingerprint_tracks_only_what_changes_the_index() -> None:
    base = load_settings()
    assert (
        base.ingest_fingerprint()
        == load_settings(overrides={"parsing": {"ocr_workers": 1}}).ingest_fingerprint()
    )
    changed = load_settings(overrides={"chunking": {"descendant_max_chars": 900}})
    assert changed.ingest_fingerprint() != base.ingest_fingerprint()


@pytest.mark.parametrize("version", ["TREE_RULES_VERSION", "CHUNK_RULES_VERSION"])
def test_fingerprint_changes_with_the_tree_and_chunk_rules(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    """New tree rules give new node ids, new chunk rules new chunks: contracts ingested with the
    old ones are re-ingested."""
    from clausewise.core import config

    before = load_settings().ingest_fingerprint()
    monkeypatch.setattr(config, version, getattr(config, version) + 1)
    assert load_settings().ingest_fingerprint() != before


def test_every_setting_is_a_cli_flag() -> None:
    keys = dict(setting_keys())
    assert "retrieval.rrf_k" in keys and "models.embedding.backend" in keys
    remaining, overrides = split_overrides(
        [
            "--retrieval.rrf-k",
            "30",
            "ingest",
            "x.pdf",
            "--parsing.remove-headers-footers",
            "--force",
            "--models.embedding.model=none",
        ]
    )
    assert remaining == ["ingest", "x.pdf", "--force"]
    assert overrides == {
        "retrieval": {"rrf_k": "30"},
        "parsing": {"remove_headers_footers": "true"},
        "models": {"embedding": {"model": None}},
    }
    assert load_settings(overrides=overrides).retrieval.rrf_k == 30


def test_unknown_flag_suggests_the_right_one() -> None:
    with pytest.raises(ConfigError, match=r"--retrieval\.rrf-k"):
        split_overrides(["--retrieval.rrf_kk", "3"])
