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

from helpers import REPO, cli_completed, cli_subprocess
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
    # one job (one call) per question: the faults are counted per call
    return cli_subprocess("run", "--judge", spec, "--agent", spec, "--tasks", "arith", "--protocols", "qa_without_article",
                          "--limit", str(N), "--seed", "1", "--output", str(out), "--answer-order", "random", *extra,
                          timeout=110)


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


# -- a full disk (issue 13 items 3 and 8) -------------------------------------------------------------
from pathlib import Path  # noqa: E402

from helpers import records  # noqa: E402

DISK_ARGS = ["--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith",
             "--protocols", "qa_without_article,consultancy,debate", "--limit", "24", "--seed", "3", "--quiet"]


@pytest.fixture
def small_disk(tmp_path):
    """A 32 MiB tmpfs (a real file system that answers ENOSPC), and `fill(room)` that leaves about
    `room` bytes free on it (None: all free)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({res.stderr.strip()}); the full-disk test needs root")

    def fill(room: int | None) -> None:
        filler = mnt / "filler"
        filler.unlink(missing_ok=True)
        if room is None:
            return
        import os

        st = os.statvfs(mnt)
        free = st.f_bavail * st.f_frsize
        with open(filler, "wb") as f:
            try:
                f.write(b"\0" * max(0, free - room))
            except OSError:
                pass

    try:
        yield mnt, fill
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _cli_run(args: list[str]) -> subprocess.CompletedProcess:
    """In-process (what is checked is the command's exit status, its one line and the store it leaves)."""
    return cli_completed(*args)


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> Path:
    """An uninterrupted run of DISK_ARGS, made once; tests read it or copy it, never write to it."""
    ref = tmp_path_factory.mktemp("faults") / "ref"
    res = _cli_run(["run", *DISK_ARGS, "--output", str(ref)])
    assert res.returncode == 0, res.stderr[-2000:]
    return ref


def _one_line_disk_full(res: subprocess.CompletedProcess) -> None:
    assert res.returncode == 2, f"exit {res.returncode}: {res.stderr[-2000:]}"
    assert "Traceback" not in res.stderr
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: no space left on the device"), res.stderr[-2000:]


def _stored(out: Path) -> list[str]:
    """The run's records; none when the disk filled before the store's tables were made."""
    db = out / "results.sqlite"
    if not db.exists() or not db.stat().st_size:
        return []
    con = sqlite3.connect(db)
    try:
        made = con.execute("SELECT 1 FROM sqlite_master WHERE name='records'").fetchone()
    finally:
        con.close()
    return records(out) if made else []


def test_full_disk_during_a_run_resumes_exactly(small_disk, reference_run):
    """The disk fills at several points of a run (before the store exists, early, mid-run, late):
    each time one line and exit 2, every stored job whole; after space is freed the resumed run
    equals an uninterrupted one."""
    mnt, fill = small_disk
    expected = records(reference_run)
    by_job: dict[str, set[str]] = {}
    import json

    for r in expected:
        by_job.setdefault(json.loads(r)["job_key"], set()).add(r)
    out = mnt / "run"
    stored = []
    for room in (0, 600 << 10, 1200 << 10, 2000 << 10, 3000 << 10, 4500 << 10, 6000 << 10):  # the WAL grows by pages a commit
        fill(room)
        res = _cli_run(["run", *DISK_ARGS, "--output", str(out)])
        if res.returncode == 0:
            break
        _one_line_disk_full(res)
        assert str(out) in res.stderr
        fill(None)  # free the space: what was stored must read back whole
        got = _stored(out)
        jobs: dict[str, set[str]] = {}
        for r in got:
            jobs.setdefault(json.loads(r)["job_key"], set()).add(r)
        assert all(recs == by_job[k] for k, recs in jobs.items()), "a job is partial after ENOSPC"
        stored.append(len(jobs))
    # before the store existed, and at two or more points mid-run (different numbers of jobs stored)
    assert stored[0] == 0 and stored == sorted(stored) and len({n for n in stored if n > 0}) >= 2, \
        f"the disk did not fill at enough points of the run: jobs stored {stored}"
    fill(None)
    res = _cli_run(["run", *DISK_ARGS, "--output", str(out)])
    assert res.returncode == 0, res.stderr[-2000:]
    assert records(out) == expected, f"jobs stored after each full disk: {stored}"


def test_full_disk_during_report(small_disk, reference_run, tmp_path):
    """`report` writing to a full disk, at several points: one line, exit 2, the run untouched; with
    space freed the report equals one written without the fault."""
    import json

    mnt, fill = small_disk
    run = reference_run
    before = records(run)
    ref = tmp_path / "ref_report"
    assert _cli_run(["report", str(run), "--output", str(ref)]).returncode == 0
    failures = 0
    for room in (0, 4 << 10, 48 << 10, 160 << 10):
        fill(room)
        res = _cli_run(["report", str(run), "--output", str(mnt / "report")])
        if res.returncode == 0:
            continue
        _one_line_disk_full(res)
        failures += 1
        assert records(run) == before
    assert failures >= 2, "the disk did not fill during report"
    fill(None)
    res = _cli_run(["report", str(run), "--output", str(mnt / "report")])
    assert res.returncode == 0, res.stderr[-2000:]

    def stable(path: Path) -> dict:
        data = json.loads(path.read_text())
        return {k: v for k, v in data.items() if k not in ("generated", "created", "runs")}

    assert stable(mnt / "report" / "report.json") == stable(ref / "report.json")
    assert records(run) == before


def _row_page_near_middle(db, size: int) -> int:
    """Offset of the records or calls leaf page nearest the file's middle: damage there must cost rows
    (an index or free page in the middle could be lost without losing one; the layout decides)."""
    con = sqlite3.connect(db)
    try:
        page = con.execute("PRAGMA page_size").fetchone()[0]
        pages = [n for (n,) in con.execute("SELECT pageno FROM dbstat WHERE name IN ('records', 'calls') AND pagetype = 'leaf'")]
    except sqlite3.OperationalError:  # an SQLite built without dbstat: the middle page
        return (size // 2) // 4096 * 4096
    finally:
        con.close()
    offsets = [(n - 1) * page for n in pages if n > 1]  # page 1 holds the file header
    return min(offsets, key=lambda at: abs(at - size // 2)) if offsets else (size // 2) // 4096 * 4096


@pytest.mark.parametrize("how", ["middle_page", "truncated", "zero"])
def test_salvage_then_resume_equals_uninterrupted(reference_run, tmp_path, how):
    """A damaged store is refused; `salvage` copies what reads back into a fresh run, and the same
    run command on it finishes with the records of an uninterrupted run."""
    import json
    import shutil

    ref = reference_run
    expected = records(ref)
    bad = tmp_path / "bad"
    shutil.copytree(ref, bad, ignore=shutil.ignore_patterns(".lock"))
    db = bad / "results.sqlite"
    data = db.read_bytes()
    mid = _row_page_near_middle(db, len(data))
    db.write_bytes({"middle_page": data[:mid] + b"\xa5" * 4096 + data[mid + 4096:],
                    "truncated": data[: len(data) * 2 // 3], "zero": b""}[how])
    refused = _cli_run(["run", *DISK_ARGS, "--output", str(bad)])
    assert refused.returncode == 2 and "salvage" in refused.stderr and "Traceback" not in refused.stderr
    new = tmp_path / "new"
    res = _cli_run(["salvage", str(bad), "--output", str(new)])
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Traceback" not in res.stderr
    kept = records(new)
    assert set(kept) <= set(expected)  # nothing invented, nothing altered
    def n_calls(d):
        con = sqlite3.connect(d / "results.sqlite")
        try:
            return con.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        finally:
            con.close()

    if how != "zero":  # the damage cost records or calls, and not all of them
        salvaged_something = bool(kept) or n_calls(new) > 0  # which table the cut hits depends on the page layout
        assert salvaged_something and (len(kept) < len(expected) or 0 < n_calls(new) < n_calls(ref)), res.stdout
    assert json.loads((new / "config.json").read_text())["seed"] == 3
    res = _cli_run(["run", *DISK_ARGS, "--output", str(new)])
    assert res.returncode == 0, res.stderr[-2000:]
    assert records(new) == expected
