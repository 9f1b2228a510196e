"""A model backend from a third-party package (tests/plugin_example's `calc:`), registered by entry
point through `register_models`, run end to end by `oversight-bench run`: listed with its package,
its answers and probabilities recorded, its options in the cache key, its bad options one line."""

from __future__ import annotations

import json
import sqlite3

from helpers import cli, records
from test_core import needs_example

pytestmark = needs_example

ARGS = ("--agent", "scripted:default", "--tasks", "arith", "--protocols", "qa_without_article",
        "--limit", "12", "--seed", "0", "--quiet")


def _decisions(out):
    con = sqlite3.connect(out / "results.sqlite")
    try:
        rows = [json.loads(d) for (d,) in con.execute("SELECT data FROM records WHERE kind='decision'")]
        calls = [json.loads(r) for (r,) in con.execute("SELECT request FROM calls")]
    finally:
        con.close()
    return rows, calls


def test_backend_is_listed_with_its_package():
    res = cli("list", "models")
    line = [l for l in res.output.splitlines() if l.split()[:1] == ["calc"]]
    assert res.exit_code == 0 and line and "obench-example-plugin" in line[0], res.output


def test_backend_runs_end_to_end_and_reruns_from_the_store(tmp_path):
    out = tmp_path / "exact"
    res = cli("run", "--judge", "calc:exact", *ARGS, "--output", str(out))
    assert res.exit_code == 0, res.output
    rows, calls = _decisions(out)
    assert len(rows) == 24 and all(r["correct"] for r in rows)  # it computes every sum (12 questions x both orders)
    assert all(c["model"] == "calc:exact" and c["wrong"] == 0.0 for c in calls)  # its fingerprint
    assert "model calls: 0" not in res.output
    first = records(out)
    again = cli("run", "--judge", "calc:exact", *ARGS, "--output", str(out))
    assert again.exit_code == 0 and "model calls: 0" in again.output and records(out) == first


def test_an_option_in_the_fingerprint_changes_the_answers(tmp_path):
    res = cli("run", "--judge", "calc:noisy,wrong=0.5", *ARGS, "--output", str(tmp_path / "noisy"))
    assert res.exit_code == 0, res.output
    rows, calls = _decisions(tmp_path / "noisy")
    assert 0 < sum(bool(r["correct"]) for r in rows) < len(rows)
    assert {c["wrong"] for c in calls} == {0.5}


def test_bad_option_is_one_line(tmp_path):
    from helpers import cli_subprocess

    res = cli_subprocess("run", "--judge", "calc:exact,wrnog=1", *ARGS, "--output", str(tmp_path / "bad"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "unknown option" in res.stderr and "wrnog" in res.stderr and "expected wrong=SHARE" in res.stderr
