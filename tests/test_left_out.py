"""No silent drop, no silent wait (issue 36, item 3): a protocol that cannot apply to a task is named
in a "left out" line with the reason; a run left with no job is one line, exit 2, nothing written;
`list tasks` on a fresh cache answers without running GSM8KQA's programs; a cold build shows progress."""

from __future__ import annotations

import json
import time

import pytest

from helpers import FAKE, cli


def test_a_run_with_no_job_is_one_line_exit_2_and_writes_nothing(tmp_path):
    out = tmp_path / "r"
    res = cli("run", "--judge", FAKE, "--tasks", "mmlu", "--protocols", "qa_with_article", "--limit", "2",
              "--quiet", "--output", str(out))
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: nothing to run"), res.output
    assert "qa_with_article on mmlu" in lines[0] and "no article" in lines[0] and "--tasks quality" in lines[0]
    assert not out.exists()


def test_a_protocol_left_out_of_one_task_is_named_with_the_reason(tmp_path):
    out = tmp_path / "r"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "mmlu,quality", "--protocols",
              "qa_with_article,qa_without_article", "--limit", "2", "--quiet", "--output", str(out))
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("left out"))
    assert line.startswith("left out qa_with_article on mmlu (2 question(s)): mmlu's questions have no article")
    results = json.loads((out / "results.json").read_text())
    assert {(c["protocol"], c["task"]) for c in results["cells"]} == {
        ("qa_with_article", "quality"), ("qa_without_article", "quality"), ("qa_without_article", "mmlu")}
    assert any(s.get("protocol") == "qa_with_article" and s["task"] == "mmlu" for s in results["skipped"])
    from oversight_bench.rundir.store import Store

    store = Store.open(out)
    try:  # the store's skipped table holds the tasks' rows only, not a protocol left out
        reasons = [r["reason"] for r in store._select("SELECT reason FROM skipped")]
    finally:
        store.close()
    assert reasons and not any("article" in r for r in reasons)


def test_list_tasks_on_a_fresh_cache_runs_no_program(tmp_path, monkeypatch):
    import task_configs.loaders.gsm8kqa as gsm

    def refuse(*a, **k):
        raise AssertionError("list tasks ran GSM8KQA's programs")

    monkeypatch.setattr(gsm, "run_programs", refuse)
    started = time.perf_counter()
    res = cli("list", "tasks", env={"OVERSIGHT_BENCH_CACHE": str(tmp_path / "cache")})
    seconds = time.perf_counter() - started
    assert res.exit_code == 0, res.output
    row = next(ln for ln in res.output.splitlines() if ln.startswith("gsm8kqa "))
    assert row.split()[2] == "–"
    note = next(ln for ln in res.output.splitlines() if ln.startswith("gsm8kqa:"))
    assert "programs have run in the sandbox" in note and "first run" in note
    assert seconds < 30, f"list tasks took {seconds:.1f} s on a fresh cache"


def test_a_cold_gsm8kqa_build_reports_each_program_to_its_progress_bar(tmp_path, monkeypatch):
    import task_configs.loaders.gsm8kqa as gsm
    from task_configs.sandbox import SandboxResult

    seen = []

    def fake(programs, *, on_result=None, **limits):
        seen.append(on_result)
        out = []
        for code in programs:
            on_result()
            out.append(SandboxResult("ok", 1.0))
        return out

    monkeypatch.setattr(gsm, "run_programs", fake)
    results = gsm.execute_cached(["print(1)", "print(2)", "print(1)"], cache_file=tmp_path / "c.jsonl")
    assert set(results) == {"print(1)", "print(2)"} and seen and seen[0] is not None
    assert len((tmp_path / "c.jsonl").read_text().splitlines()) == 2
    from oversight_bench.sources import CountDeferred, counting_only

    with counting_only():  # all cached now: counting needs no program run
        assert gsm.execute_cached(["print(1)"], cache_file=tmp_path / "c.jsonl")["print(1)"].status == "ok"
        with pytest.raises(CountDeferred, match=r"its 1 programs \(of 2\)"):
            gsm.execute_cached(["print(1)", "print(3)"], cache_file=tmp_path / "c.jsonl")


def test_a_missing_file_without_a_data_directory_is_said_plainly():
    from oversight_bench.sources import LoadContext

    text = LoadContext("t", "local", None, None).looked_in()
    assert "no data directory was given" in text and not text.startswith("no data")
    assert "in no data directory" not in f"not found in {LoadContext('t', 'local', None, None).looked_in()}"
