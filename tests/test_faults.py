"""A run against a server that fails the ways real APIs do still records every question once.

The fake OpenAI-compatible server (benchmarks/fake_openai_server.py) answers a seeded share of
requests with 500s, 429s with Retry-After, hangs past the client's timeout, dropped connections,
cut-off JSON bodies, and empty or malformed completions. The `openai:` backend must retry the transient ones, the
run must record each question exactly once, count unparseable answers as invalid (not fatal),
and show the retries in the progress display and in each call's `attempts`.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys

import pytest

from helpers import REPO
from test_core import needs_example

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

pytestmark = [needs_example, pytest.mark.timeout(120)]

N = 1000
FAULTS = {"500": 0.05, "429": 0.05, "hang": 0.01, "drop": 0.03, "badjson": 0.02, "empty": 0.02, "malformed": 0.03}
TRANSPORT = ("500", "429", "hang", "drop", "badjson")  # re-sent by the client


@pytest.fixture(scope="module")
def faulty_server():
    cfg = ServerConfig(latency=0.005, seed=11, faults=FAULTS, max_faults=2, retry_after=0.05, hang_s=10.0)
    with start_server(cfg) as srv:
        yield srv


def _run(srv, out, *extra):
    spec = f"openai:flaky,base_url={srv.url},concurrency=64,timeout=2,max_retries=4"
    cmd = [sys.executable, "-m", "oversight_bench.cli", "run", "--judge", spec, "--agent", spec, "--tasks", "arith",
           "--protocols", "qa_without_article", "--limit", str(N), "--seed", "1", "--output", str(out),
           "--answer-order", "random", *extra]  # one job (one call) per question: the faults are counted per call
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=110)


def test_faulty_server_every_question_once(faulty_server, tmp_path):
    srv = faulty_server
    srv.reset()
    out = tmp_path / "run"
    res = _run(srv, out)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Traceback" not in res.stderr
    stats = srv.stats()
    faults = stats["by_fault"]
    assert all(faults.get(k, 0) > 0 for k in FAULTS), faults  # every fault kind really happened

    con = sqlite3.connect(out / "results.sqlite")
    try:
        decisions = con.execute("SELECT question_id, data FROM records WHERE kind='decision'").fetchall()
        calls = con.execute("SELECT COUNT(*), SUM(attempts), SUM(attempts > 1) FROM calls").fetchone()
    finally:
        con.close()
    # every question exactly once
    assert len(decisions) == N
    assert len({q for q, _ in decisions}) == N

    # empty and malformed completions are recorded as invalid answers, not failures
    import json
    invalid = sum(1 for _, d in decisions if json.loads(d)["answer"] is None)
    assert invalid == faults["empty"] + faults["malformed"]
    assert f"invalid answers: {invalid}" in res.stdout

    # retries are in the records: every request the server saw is an attempt of some stored call
    n_calls, attempts, retried = calls
    assert n_calls == N
    assert attempts == stats["requests"], (attempts, stats)
    assert retried > 0
    transport = sum(faults.get(k, 0) for k in TRANSPORT)
    assert attempts - n_calls == transport

    # ...and in the progress display (its last redraw shows the final counts)
    shown = re.findall(r"retries=(\d+)", res.stderr)
    assert shown and int(shown[-1]) == transport, res.stderr[-500:]


def test_resume_after_faults_makes_no_new_calls(faulty_server, tmp_path):
    """A finished faulty run re-run is all cache/store: zero requests reach the server."""
    srv = faulty_server
    out = tmp_path / "run"
    assert _run(srv, out, "--quiet", "--limit", "50").returncode == 0
    srv.reset()
    res = _run(srv, out, "--quiet", "--limit", "50")
    assert res.returncode == 0, res.stderr[-2000:]
    assert srv.stats()["requests"] == 0
    assert "model calls: 0" in res.stdout


def test_failed_jobs_are_saved_around_and_a_rerun_completes(tmp_path):
    """Attempts that keep failing past max_retries fail their jobs with a one-line error (exit 1);
    the other jobs are saved, and running the same command again finishes the rest."""
    with start_server(ServerConfig(seed=3, faults={"badjson": 0.1}, max_faults=1)) as srv:
        out = tmp_path / "run"
        no_retries = ("--quiet", "--limit", "100", "--judge", f"openai:flaky,base_url={srv.url},concurrency=64,max_retries=0")
        first = _run(srv, out, *no_retries)
        assert first.returncode == 1, first.stderr[-2000:]
        assert "Traceback" not in first.stderr
        failed = srv.stats()["by_fault"]["badjson"]
        assert f"{failed} job(s) failed" in first.stderr and "run the same command again" in first.stderr
        assert "the body is not JSON" in first.stderr
        assert f"jobs: {100 - failed} done" in first.stdout
        second = _run(srv, out, *no_retries)  # the server fails each prompt once only
        assert second.returncode == 0, second.stderr[-2000:]
        assert f"jobs: {failed} done, {100 - failed} already stored" in second.stdout
    con = sqlite3.connect(out / "results.sqlite")
    try:
        assert con.execute("SELECT COUNT(DISTINCT question_id), COUNT(*) FROM records WHERE kind='decision'").fetchone() == (100, 100)
    finally:
        con.close()
