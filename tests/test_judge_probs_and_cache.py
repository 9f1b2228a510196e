"""`--judge-mode probs` (the answer read from the answer-token probabilities, for judges too small to
follow the format) and `--cache-from` (reuse another run's stored calls for identical requests)."""

from __future__ import annotations

import json
import sqlite3

from helpers import FAKE, cli


def _rows(directory, sql: str) -> list[tuple]:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _decisions(directory) -> dict[str, dict]:
    return {k: json.loads(d) for k, d in _rows(directory, "SELECT job_key, data FROM records WHERE kind='decision'")}


def test_probs_mode_answers_from_probabilities_and_generates_nothing(tmp_path):
    out = tmp_path / "probs"
    res = cli("run", "--judge", "scripted:default,logprobs=true", "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3",
              "--protocols", "qa_without_article,debate", "--rounds", "1", "--best-of-n", "1", "--judge-mode", "probs",
              "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert "judge answer read from its answer-token probabilities" in res.output  # declared as a deviation
    kinds = dict(_rows(out, "SELECT json_extract(request, '$.kind'), COUNT(*) FROM calls WHERE role='judge' GROUP BY 1"))
    assert set(kinds) == {"choice_probs"}  # the judge wrote nothing
    ds = _decisions(out)
    assert ds and all(d["extra"]["answer_from"] == "probs" and d["raw"] == "" for d in ds.values())
    for d in ds.values():
        p1, p2 = d["probs"]
        assert d["answer"] == (None if p1 == p2 else 1 if p1 > p2 else 2)
        assert d["correct"] == (None if d["answer"] is None else d["answer"] == d["correct_index"])
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["options"]["judge_mode"] == "probs"


def test_probs_mode_needs_a_judge_with_logprobs(tmp_path):
    out = tmp_path / "nolp"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2",
              "--protocols", "qa_without_article", "--judge-mode", "probs", "--output", str(out), "--quiet")
    assert res.exit_code == 2
    assert "judge_mode probs" in res.output and len(res.output.strip().splitlines()) == 1
    assert not out.exists()


def test_cache_from_reuses_identical_calls_only(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    common = ["--agent", FAKE, "--tasks", "prontoqa", "--limit", "3", "--protocols", "qa_without_article", "--quiet"]
    assert cli("run", "--judge", "scripted:default,logprobs=true", *common, "--output", str(a)).exit_code == 0
    # the same judge in probs mode: its probability requests are the predict run's, so every one is reused
    res = cli("run", "--judge", "scripted:default,logprobs=true", *common, "--judge-mode", "probs", "--output", str(b),
              "--cache-from", str(a))
    assert res.exit_code == 0, res.output
    assert _rows(b, "SELECT COUNT(*), SUM(attempts) FROM calls") == [(6, 0)]  # 6 copies, none made
    assert "model calls: 0, cache hits: 6" in res.output
    probs_a = {k: d["probs"] for k, d in _decisions(a).items()}
    assert {k: d["probs"] for k, d in _decisions(b).items()} == probs_a
    # the cache key is the whole request: a run whose requests differ (another seed) reuses nothing
    res = cli("run", "--judge", "scripted:default,logprobs=true", *common, "--seed", "1", "--output", str(c),
              "--cache-from", str(a))
    assert res.exit_code == 0, res.output
    assert _rows(c, "SELECT COUNT(*) FROM calls WHERE attempts = 0") == [(0,)]
    # config.json does not carry it: a resume with or without --cache-from is the same run
    assert "cache_from" not in json.loads((b / "config.json").read_text())


def test_cache_from_bad_directory_is_one_line(tmp_path):
    out = tmp_path / "out"
    for bad, words in ((tmp_path / "missing", "not a run directory"), (out, "is inside run directory")):
        res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1",
                  "--protocols", "qa_without_article", "--output", str(out), "--cache-from", str(bad), "--quiet")
        assert res.exit_code == 2, res.output
        assert words in res.output and len(res.output.strip().splitlines()) == 1
        assert not out.exists()


def test_probs_mode_sends_the_predict_prompts(tmp_path):
    """probs changes how the answer is read, not what the judge is shown: every protocol's judge prompt
    is the predict prompt, byte for byte."""
    prompts = {}
    for mode in ("predict", "probs"):
        out = tmp_path / mode
        res = cli("run", "--judge", "scripted:default,logprobs=true", "--agent", FAKE, "--tasks", "prontoqa,boolq",
                  "--limit", "2", "--protocols", "qa_without_article,qa_with_article,debate,consultancy", "--rounds", "1",
                  "--best-of-n", "1", "--judge-mode", mode, "--output", str(out), "--quiet")
        assert res.exit_code == 0, res.output
        kind = "generate" if mode == "predict" else "choice_probs"
        rows = _rows(out, "SELECT protocol, question_id, assignment, answer_order, json_extract(request, '$.messages') "
                          f"FROM calls WHERE role='judge' AND json_extract(request, '$.kind') = '{kind}'")
        prompts[mode] = {r[:4]: r[4] for r in rows}
    assert prompts["probs"] and prompts["probs"] == prompts["predict"]
    assert {k[0] for k in prompts["probs"]} == {"qa_without_article", "qa_with_article", "debate", "consultancy"}
