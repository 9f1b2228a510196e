"""The budget guard (issue 32, item 8): `--max-total-tokens` and `--max-cost` stop every command that
makes calls (run, judge, elo) in one line with exit 1, every finished job kept, and a resume with a
higher limit continues to the uninterrupted run's records; `--max-cost` needs a price for every model."""

from __future__ import annotations

import sqlite3
import sys

import pytest

from helpers import REPO, cli, records

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def _used(out, where: str = "") -> tuple[int, int, int]:
    """(calls, tokens, decisions) stored in a run directory."""
    con = sqlite3.connect(out / "results.sqlite")
    try:
        calls, tokens = con.execute(f"SELECT COUNT(*), COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM calls {where}").fetchone()
        jobs = con.execute("SELECT COUNT(*) FROM records WHERE kind='decision'").fetchone()[0]
        return calls, tokens, jobs
    finally:
        con.close()


def _one_error(res) -> str:
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in res.output, res.output
    return errors[0]


# -- N-38: calls that all leave at once ----------------------------------------------------------------
@pytest.fixture(scope="module")
def eight_tokens():
    """A server whose every answer reports 8 tokens (5 prompt + 3 reply), slow enough that the run's
    20 one-call jobs are all ready to send before the first answer is back."""
    with start_server(ServerConfig(latency=0.2, usage=[5, 3])) as s:
        yield s


QA20 = ["--tasks", "arith", "--protocols", "qa_without_article", "--limit", "10", "--answer-order", "both",
        "--seed", "1", "--quiet"]


def test_max_total_tokens_holds_when_every_call_leaves_at_once(eight_tokens, tmp_path):
    """N-38: 20 jobs of one call each, 8 tokens a call, --max-total-tokens 50. The old guard counted
    only answered calls, so all 20 went out before the first answer (160 tokens). Now a call waits
    while the calls in flight may spend what is left: 7 calls (56 tokens), as one after another."""
    spec = f"openai:fake,base_url={eight_tokens.url}"
    full = tmp_path / "full"
    res = cli("run", "--judge", spec, *QA20, "--output", str(full))
    assert res.exit_code == 0, res.output
    assert _used(full) == (20, 160, 20)

    eight_tokens.reset()
    out = tmp_path / "run"
    first = cli("run", "--judge", spec, *QA20, "--max-total-tokens", "50", "--output", str(out))
    assert first.exit_code == 1, first.output
    assert "--max-total-tokens 50" in _one_error(first)
    calls, tokens, jobs = _used(out)
    assert 50 <= tokens <= 50 + 8 and calls == jobs == 7, (calls, tokens, jobs)
    assert eight_tokens.stats()["requests"] == 7  # nothing sent that was not stored

    more = cli("run", "--judge", spec, *QA20, "--max-total-tokens", "1000", "--output", str(out))
    assert more.exit_code == 0, more.output
    assert _used(out) == (20, 160, 20) and records(out) == records(full)


# -- judge ---------------------------------------------------------------------------------------------
SOURCE = ["--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith",
          "--protocols", "qa_without_article,debate", "--limit", "4", "--rounds", "1", "--seed", "4", "--quiet"]
NEW_JUDGE = "scripted:default,delay=0.01"


@pytest.fixture(scope="module")
def source_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("budget") / "source"
    assert cli("run", *SOURCE, "--output", str(out)).exit_code == 0
    return out


def test_judge_stops_at_max_total_tokens_and_a_higher_limit_continues(source_run, tmp_path):
    full = tmp_path / "full"
    assert cli("judge", "--from", str(source_run), "--judge", NEW_JUDGE, "--output", str(full), "--quiet").exit_code == 0
    calls, total, jobs = _used(full)
    assert calls == jobs == 16 and total > 0

    out = tmp_path / "part"
    limit = total // 3
    first = cli("judge", "--from", str(source_run), "--judge", NEW_JUDGE, "--output", str(out), "--quiet",
                "--max-total-tokens", str(limit))
    assert first.exit_code == 1 and f"--max-total-tokens {limit}" in _one_error(first)
    _, used, kept = _used(out)
    assert used >= limit and 0 < kept < jobs
    assert used <= limit + max(total // calls * 2, 1)  # about one call over, not every call in flight

    more = cli("judge", "--from", str(source_run), "--judge", NEW_JUDGE, "--output", str(out), "--quiet",
               "--max-total-tokens", str(total * 10))
    assert more.exit_code == 0, more.output
    assert records(out) == records(full) and _used(out) == (calls, total, jobs)


# -- elo -----------------------------------------------------------------------------------------------
XP = ["--judge", "scripted:default", "--debaters", "scripted:default,scripted:default,delay=0", "--tasks", "boolq,mmlu",
      "--pairings", "4", "--bootstrap", "5", "--quiet"]


def test_elo_stops_at_max_total_tokens_and_a_higher_limit_continues(tmp_path):
    full = tmp_path / "full"
    assert cli("elo", *XP, "--output", str(full)).exit_code == 0
    calls, total, jobs = _used(full / "crossplay")
    assert jobs >= 4 and total > 0

    out = tmp_path / "part"
    first = cli("elo", *XP, "--output", str(out), "--max-total-tokens", str(total // 3))
    assert first.exit_code == 1 and f"--max-total-tokens {total // 3}" in _one_error(first)
    assert not (out / "elo.json").exists()  # no fit over an incomplete set of games
    _, used, kept = _used(out / "crossplay")
    assert used >= total // 3 and kept < jobs

    more = cli("elo", *XP, "--output", str(out), "--max-total-tokens", str(total * 10))
    assert more.exit_code == 0, more.output
    assert records(out / "crossplay") == records(full / "crossplay") and (out / "elo.json").exists()


# -- --max-cost ----------------------------------------------------------------------------------------
PRICED = ["--judge", "scripted:default,price_in=2000,price_out=8000", "--agent", "scripted:default,price_in=1000,price_out=4000",
          *SOURCE[4:]]


def _cost(out) -> float:
    con = sqlite3.connect(out / "results.sqlite")
    try:  # at the prices above: the judge's calls are stored under its name, the agent's under its own
        rows = con.execute("SELECT model, SUM(prompt_tokens), SUM(completion_tokens) FROM calls GROUP BY model").fetchall()
    finally:
        con.close()
    return sum((p * 2000 + c * 8000 if "price_in=2000" in m else p * 1000 + c * 4000) / 1e6 for m, p, c in rows)


def test_max_cost_stops_and_a_higher_limit_continues_with_other_prices(tmp_path):
    full = tmp_path / "full"
    assert cli("run", *PRICED, "--output", str(full)).exit_code == 0
    whole = _cost(full)
    assert whole > 0

    out = tmp_path / "run"
    first = cli("run", *PRICED, "--max-cost", f"{whole / 3:.6f}", "--output", str(out))
    assert first.exit_code == 1 and "--max-cost" in _one_error(first) and "higher --max-cost" in _one_error(first)
    spent, kept = _cost(out), _used(out)[2]
    assert spent >= whole / 3 * 0.999 and 0 < kept < _used(full)[2]

    # prices are no identity: a resume may give others (here the judge's halved), and a higher limit
    cheaper = [PRICED[0], "scripted:default,price_in=1000,price_out=4000", *PRICED[2:]]
    more = cli("run", *cheaper, "--max-cost", f"{whole * 10:.6f}", "--output", str(out))
    assert more.exit_code == 0, more.output
    assert records(out) == records(full)


@pytest.mark.parametrize("judge, agent, needle", [
    ("scripted:default", "scripted:default,price_in=1,price_out=1", "no price known for model 'scripted:default'"),
    ("scripted:default,price_in=1,price_out=1", "scripted:default", "no price known for model 'scripted:default'"),
    ("scripted:default,price_in=1", "scripted:default,price_in=1,price_out=1", "price_in is given without price_out"),
])
def test_max_cost_without_a_price_is_refused_before_anything_is_written(tmp_path, judge, agent, needle):
    out = tmp_path / "run"
    res = cli("run", "--judge", judge, "--agent", agent, *SOURCE[4:], "--max-cost", "1", "--output", str(out))
    assert res.exit_code == 2 and needle in res.output and len(res.output.strip().splitlines()) == 1, res.output
    assert not out.exists()


def test_an_unused_agent_needs_no_price(tmp_path):
    """A QA-only run makes no agent call: its agent's price is not asked for."""
    out = tmp_path / "run"
    res = cli("run", "--judge", "scripted:default,price_in=1,price_out=1", "--agent", "scripted:default",
              "--tasks", "arith", "--protocols", "qa_without_article", "--limit", "2", "--quiet",
              "--max-cost", "100", "--output", str(out))
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("args, needle", [
    (["--max-cost", "0"], "--max-cost 0.0 is not valid"),
    (["--max-cost", "nan"], "--max-cost nan is not valid"),
    (["--max-cost", "-1"], "--max-cost -1.0 is not valid"),
])
def test_bad_max_cost_is_one_line(tmp_path, args, needle):
    out = tmp_path / "x"
    res = cli("run", *SOURCE, *args, "--output", str(out))
    assert res.exit_code == 2 and needle in res.output and len(res.output.strip().splitlines()) == 1, res.output
    assert not out.exists()


def test_judge_bad_budget_is_one_line(source_run, tmp_path):
    out = tmp_path / "x"
    for args, needle in ((["--max-total-tokens", "0"], "--max-total-tokens 0 is not valid"),
                         (["--max-cost", "inf"], "--max-cost inf is not valid"),
                         (["--max-cost", "1"], "no price known for model 'scripted:default'")):
        res = cli("judge", "--from", str(source_run), "--judge", "scripted:default", "--output", str(out), *args)
        assert res.exit_code == 2 and needle in res.output and len(res.output.strip().splitlines()) == 1, res.output
        assert not out.exists()
