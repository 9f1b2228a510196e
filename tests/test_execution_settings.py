"""Execution settings are not a run's identity (issue 32, item 2): how calls are made (calls in
flight, timeout, retries, rate limits, further replicas, the key) may change between a run and its
resume; an option that changes a request is still refused in one line that names it. Each backend
declares its execution settings on its `Options` (`EXECUTION_ONLY`, `identity_options`)."""

from __future__ import annotations

import sqlite3
import sys

import pytest

from helpers import REPO, cli
from oversight_bench.models import identity_spec

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

pytestmark = pytest.mark.timeout(120)

ARGS = ["--tasks", "arith", "--protocols", "qa_without_article,debate", "--limit", "2", "--rounds", "1",
        "--answer-order", "random", "--seed", "4", "--quiet"]


def test_identity_spec_drops_execution_settings_only():
    base = "openai:m,base_url=http://a:1/v1,top_p=0.5"
    same = identity_spec(base)
    assert identity_spec(f"{base},concurrency=1,timeout=900,max_retries=0,rpm=60,tpm=1000,api_key_env=K") == same
    assert identity_spec("openai:m,top_p=0.5,base_url=http://a:1/v1|http://b:2/v1|http://c:3/v1") == same  # replicas, order
    assert identity_spec(f"{base},top_logprobs=5") != same  # the request changes
    assert identity_spec("openai:m,base_url=http://b:2/v1|http://a:1/v1,top_p=0.5") != same  # the first names the model
    assert identity_spec("scripted:default,concurrency=1") == identity_spec("scripted:default")
    assert identity_spec("scripted:default,delay=1") != identity_spec("scripted:default")
    assert identity_spec("human") == "human"  # not a spec of a backend: itself


def test_scripted_resume_with_other_concurrency(tmp_path):
    out = tmp_path / "run"
    first = cli("run", "--judge", "scripted:default,concurrency=2", "--agent", "scripted:default", *ARGS, "--output", str(out))
    assert first.exit_code == 0, first.output
    again = cli("run", "--judge", "scripted:default", "--agent", "scripted:default,concurrency=1", *ARGS, "--output", str(out))
    assert again.exit_code == 0, again.output
    assert "model calls: 0" in again.output and "already stored" in again.output
    con = sqlite3.connect(out / "results.sqlite")
    try:  # the run keeps the names it was started with
        assert {r[0] for r in con.execute("SELECT judge FROM records WHERE kind='decision'")} == {"scripted:default,concurrency=2"}
    finally:
        con.close()
    refused = cli("run", "--judge", "scripted:default,concurrency=2", "--agent", "scripted:default,continuation=false",
                  *ARGS, "--output", str(out))
    assert refused.exit_code == 2
    assert "different agent (option continuation)" in refused.output and len(refused.output.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def server():
    with start_server(ServerConfig(record=True)) as s:
        yield s


def test_openai_resume_with_other_execution_settings(server, tmp_path):
    """concurrency, timeout, max_retries, rpm, tpm and more replicas changed: accepted, nothing re-sent;
    a request parameter changed (top_p): refused, naming it, nothing written."""
    out = tmp_path / "run"
    spec = f"openai:fake,base_url={server.url},concurrency=4"
    first = cli("run", "--judge", spec, "--agent", spec, *ARGS, "--output", str(out))
    assert first.exit_code == 0, first.output
    server.reset()
    dead = "http://127.0.0.1:9/v1"  # a replica that is down: the calls are all stored anyway
    other = f"openai:fake,base_url={server.url}|{dead},concurrency=1,timeout=30,max_retries=2,rpm=600,tpm=100000"
    again = cli("run", "--judge", other, "--agent", other, *ARGS, "--output", str(out))
    assert again.exit_code == 0, again.output
    assert "model calls: 0" in again.output and server.stats()["requests"] == 0
    assert "resuming with other execution settings" in again.output and "concurrency" in again.output
    before = (out / "results.sqlite").stat().st_size
    refused = cli("run", "--judge", f"{spec},top_p=0.5", "--agent", spec, *ARGS, "--output", str(out))
    assert refused.exit_code == 2
    assert "different judge (option top_p)" in refused.output and len(refused.output.strip().splitlines()) == 1
    assert server.stats()["requests"] == 0 and (out / "results.sqlite").stat().st_size == before


# -- the budget guard (issue 32, item 8) ---------------------------------------------------------------
BUDGET_ARGS = ["--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith",
               "--protocols", "qa_without_article,debate", "--limit", "6", "--rounds", "1", "--seed", "4", "--quiet"]


def _tokens_and_jobs(out):
    con = sqlite3.connect(out / "results.sqlite")
    try:
        tokens = con.execute("SELECT SUM(prompt_tokens + completion_tokens) FROM calls").fetchone()[0] or 0
        jobs = con.execute("SELECT COUNT(*) FROM records WHERE kind='decision'").fetchone()[0]
        return tokens, jobs
    finally:
        con.close()


def test_max_total_tokens_stops_cleanly_and_a_higher_limit_continues(tmp_path):
    full = tmp_path / "full"
    assert cli("run", *BUDGET_ARGS, "--output", str(full)).exit_code == 0
    total, jobs = _tokens_and_jobs(full)
    assert jobs == 24 and total > 0  # 6 questions x (qa + debate) x both answer orders

    out = tmp_path / "run"
    limit = total // 3
    first = cli("run", *BUDGET_ARGS, "--max-total-tokens", str(limit), "--output", str(out))
    assert first.exit_code == 1, first.output
    errors = [line for line in first.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"--max-total-tokens {limit}" in errors[0] and "higher" in errors[0], first.output
    used, kept = _tokens_and_jobs(out)
    assert used >= limit and 0 < kept < jobs  # stopped at the limit, every finished job kept
    assert "Traceback" not in first.output

    same = cli("run", *BUDGET_ARGS, "--max-total-tokens", str(limit), "--output", str(out))
    assert same.exit_code == 1 and "model calls: 0" in same.output  # the same limit: nothing more is sent
    assert _tokens_and_jobs(out) == (used, kept)

    more = cli("run", *BUDGET_ARGS, "--max-total-tokens", str(total * 10), "--output", str(out))
    assert more.exit_code == 0, more.output
    from helpers import records
    assert records(out) == records(full)  # the continued run is the uninterrupted one
    assert _tokens_and_jobs(out) == (total, jobs)


def test_max_total_tokens_must_be_positive(tmp_path):
    res = cli("run", *BUDGET_ARGS, "--max-total-tokens", "0", "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "--max-total-tokens 0 is not valid" in res.output and not (tmp_path / "x").exists()
