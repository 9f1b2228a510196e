"""One rule for the data folder and one for the cache root, whoever asks."""

from __future__ import annotations

import pytest

from oversight_bench import locations, suites, tasks
from oversight_bench.errors import BenchError


def test_tasks_and_suites_find_the_same_data_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("OVERSIGHT_BENCH_DATA", raising=False)
    (tmp_path / "shared" / "datasets").mkdir(parents=True)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    found = (tmp_path / "shared" / "datasets").resolve()
    assert tasks.data_dir() == suites.data_dir() == locations.data_dir() == found
    monkeypatch.setenv("OVERSIGHT_BENCH_DATA", str(tmp_path / "work"))
    assert tasks.data_dir() == suites.data_dir() == (tmp_path / "work").resolve()
    monkeypatch.setenv("OVERSIGHT_BENCH_DATA", str(tmp_path / "missing"))
    for where in (tasks.data_dir, suites.data_dir):
        with pytest.raises(BenchError, match="OVERSIGHT_BENCH_DATA: data directory .*missing does not exist; expected"):
            where()


def test_one_cache_root_with_named_subfolders(tmp_path, monkeypatch, capsys):
    from model_adapters import local_models
    from task_configs.loaders import gsm8kqa

    for var in ("OVERSIGHT_BENCH_CACHE", "XDG_CACHE_HOME", *locations.LEGACY_CACHE_ENV.values()):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert locations.cache_root() == tmp_path / "home" / ".cache" / "oversight-bench"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert locations.cache_root() == tmp_path / "xdg" / "oversight-bench"
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "c"))
    assert local_models.cache_dir() == tmp_path / "c" / "models"
    assert suites.cache_dir() == tmp_path / "c" / "suites"
    assert gsm8kqa.cache_dir() == tmp_path / "c" / "gsm8kqa"
    assert capsys.readouterr().err == ""


def test_old_cache_variables_still_work_with_a_note(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(locations, "_noted", set())
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("OVERSIGHT_BENCH_SUITE_CACHE", str(tmp_path / "old"))
    assert suites.cache_dir() == suites.cache_dir() == tmp_path / "old"
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["note: OVERSIGHT_BENCH_SUITE_CACHE is deprecated and will be dropped; set OVERSIGHT_BENCH_CACHE "
                   "instead (its suites/ subfolder is this cache)"]
