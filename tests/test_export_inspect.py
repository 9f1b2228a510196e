"""`export --inspect DIR` (issue 36, item 8): inspect_ai eval logs that inspect's own reader loads, one per
judge · protocol · task cell, with one sample per judged room, the judge's decision as its score, the
cell's metrics as results.json holds them, what the judge read as messages, and tokens per model."""

from __future__ import annotations

import json
import sys

import pytest

from helpers import FAKE, cli, stored_records

RUN = ["run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3", "--quiet",
       "--protocols", "qa_without_article,debate", "--rounds", "1"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    pytest.importorskip("inspect_ai")
    base = tmp_path_factory.mktemp("inspect")
    run, logs = base / "run", base / "logs"
    res = cli(*RUN, "--output", str(run))
    assert res.exit_code == 0, res.output
    res = cli("export", str(run), "--inspect", str(logs))
    assert res.exit_code == 0, res.output
    return run, logs, res.output


def test_each_cell_is_one_log_that_inspects_reader_loads(exported):
    from inspect_ai.log import list_eval_logs, read_eval_log

    from oversight_bench.rundir.results_file import read_results

    run, logs, output = exported
    cells = {(c.protocol, c.task): c for c in read_results(run).cells}
    files = sorted(logs.glob("*.eval"))
    assert len(files) == len(cells) == 2 and "2 eval log(s)" in output
    assert len(list_eval_logs(str(logs))) == 2  # what `inspect view` lists
    for f in files:
        log = read_eval_log(str(f))
        protocol = log.eval.task_args["protocol"]
        cell = cells[(protocol, "prontoqa")]
        assert log.status == "success" and log.eval.model == FAKE and log.eval.task == f"prontoqa/{protocol}"
        assert len(log.samples) == cell.n_records == log.results.total_samples
        metrics = log.results.scores[0].metrics
        assert metrics["accuracy"].value == pytest.approx(cell.accuracy)
        assert metrics["n"].value == cell.n and metrics["n_invalid"].value == cell.n_invalid
        if cell.ci_low is not None:
            assert metrics["ci_low"].value == pytest.approx(cell.ci_low)
        decisions = _decisions(run, protocol)
        assert {s.id for s in log.samples} == set(decisions)
        for s in log.samples:
            d = decisions[s.id]
            want = "N" if d.get("answer") is None else ("C" if d["correct"] else "I")
            assert s.scores["judge"].value == want
            assert s.messages[-1].role == "assistant" and s.messages[-1].text == (d.get("raw") or s.messages[-1].text)
            assert any(m.role == "user" for m in s.messages)
            assert s.model_usage[FAKE].input_tokens > 0  # the judge's call
        assert log.stats.model_usage[FAKE].input_tokens > 0


def test_a_debate_sample_carries_the_arguments_the_judge_read(exported):
    from inspect_ai.log import read_eval_log

    run, logs, _ = exported
    log = next(x for x in map(lambda f: read_eval_log(str(f)), sorted(logs.glob("*.eval")))
               if x.eval.task_args["protocol"] == "debate")
    turns = _turns(run, "debate")
    for s in log.samples:
        prompt = "\n".join(m.text for m in s.messages if m.role != "assistant")
        shown = [t["shown"] for t in turns[s.id] if t.get("role") != "judge"]
        assert shown and all(x.strip()[:100] in prompt for x in shown)


def test_a_second_export_replaces_its_own_logs_and_refuses_foreign_folders(exported, tmp_path):
    run, logs, _ = exported
    before = sorted(p.name for p in logs.iterdir())
    res = cli("export", str(run), "--inspect", str(logs))
    assert res.exit_code == 0, res.output
    after = sorted(p.name for p in logs.iterdir())
    assert len(after) == len(before) == 3 and "oversight-bench-inspect.json" in after
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "2024-01-01T00-00-00+00-00_task_abc.eval").write_text("someone else's log")
    res = cli("export", str(run), "--inspect", str(foreign))
    assert res.exit_code == 2 and "is not empty" in res.output and len(res.output.strip().splitlines()) == 1
    assert (foreign / "2024-01-01T00-00-00+00-00_task_abc.eval").read_text() == "someone else's log"
    res = cli("export", str(run), "--inspect", str(run / "x"))
    assert res.exit_code == 2 and "inside run directory" in res.output


def test_without_inspect_ai_it_is_one_line_naming_the_extra(exported, tmp_path, monkeypatch):
    run, _, _ = exported
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import fails as if not installed
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    res = cli("export", str(run), "--inspect", str(tmp_path / "out"))
    assert res.exit_code == 2, res.output
    assert res.output.strip().count("\n") == 0 and "oversight-bench[inspect]" in res.output
    assert not (tmp_path / "out").exists()


def _records(run, kind: str, protocol: str) -> list[dict]:
    from oversight_bench.rundir.store import Store

    store = Store.open(run)
    try:
        return [r for r in stored_records(store, kind) if r["protocol"] == protocol]
    finally:
        store.close()


def _decisions(run, protocol: str) -> dict[str, dict]:
    return {d["job_key"]: d for d in _records(run, "decision", protocol)}


def _turns(run, protocol: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for t in _records(run, "turn", protocol):
        out.setdefault(t["job_key"], []).append({**t, "shown": t.get("shown", t.get("content"))})
    return out
