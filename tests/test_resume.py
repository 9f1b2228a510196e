"""SIGKILL a run at points the test chooses (after N jobs are stored, while `report` has the store
open); each resume must end with the records of an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import time

from helpers import cli_completed, cli_popen, cli_subprocess, records
from test_core import needs_example

pytestmark = needs_example

# a few calls in flight at a time: jobs end a few at once, so a kill point of N jobs stored is met
# within a job or two (with the backend's default, dozens end in the same instant)
ARGS = ["--judge", "scripted:default,delay=0.02,concurrency=4", "--agent", "scripted:default,delay=0.02,concurrency=4",
        "--tasks", "arith", "--protocols", "qa_without_article,consultancy,debate,open_debate",
        "--limit", "16", "--seed", "3", "--quiet"]


def _run(out) -> None:
    """The run to its end, in-process (the kills need processes; the reference and the final resume do not)."""
    res = cli_completed("run", *ARGS, "--output", str(out))
    assert res.returncode == 0, res.stderr[-2000:]


def _by_job(recs: list[str]) -> dict[str, set[str]]:
    jobs: dict[str, set[str]] = {}
    for r in recs:
        jobs.setdefault(json.loads(r)["job_key"], set()).add(r)
    return jobs


def _has_records_table(out) -> bool:
    """A kill early in the start leaves a store whose tables were never made: no jobs. Opened read-write
    (never created): a killed writer's log may need recovering, which a read-only open refuses
    ("attempt to write a readonly database"); the resume would recover it the same way."""
    db = out / "results.sqlite"
    if not db.exists():
        return False
    con = sqlite3.connect(f"file:{db}?mode=rw", uri=True)
    try:
        return con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'").fetchone() is not None
    finally:
        con.close()


def _records_stored(out) -> int:
    """Records (turns and decisions) in the store a run is writing; 0 before it has any. Counted over
    both kinds, so a kill point can fall between a job's turns and its decision if they ever commit
    apart (counting decisions only would kill just after a job's last commit)."""
    db = out / "results.sqlite"
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
        try:
            return con.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # no tables yet, or busy this instant: ask again
        return 0


def _has_open(pid: int, path) -> bool:
    """Whether process `pid` holds `path` open now, or the private copy a reader takes of it while a
    run writes (rundir.connect._snapshot: a file of the same name in a temporary folder). The store
    itself is open only while it is copied, a few milliseconds, so a kill timed on it alone missed
    both of its chances now and then on an idle machine; the copy is open for the rest of the read."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target == os.path.realpath(path) or (os.path.basename(target) == os.path.basename(path)
                                                   and "/oversight-bench-read-" in target):
                return True
        except OSError:
            pass
    return False


def _until(condition, proc, what: str, limit: float = 120.0) -> bool:
    """Poll `condition` until it holds (True) or `proc` ends first (False)."""
    deadline = time.monotonic() + limit
    while not condition():
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, f"waited {limit} s for {what}"
        time.sleep(0.005)
    return True


def _tail(path, limit: int = 1500) -> str:
    """The end of a killed run's stderr, for the message of a failure (what the run said before it ended)."""
    text = path.read_text(errors="replace")
    return text[-limit:] or "(nothing)"


def _assert_whole_jobs(out, expected_jobs: dict[str, set[str]]) -> int:
    """After a kill: every job present has all of its records, exactly as in the reference."""
    got = _by_job(records(out)) if _has_records_table(out) else {}
    for key, recs in got.items():
        assert recs == expected_jobs[key], f"job {key} is partial or differs after a kill"
    return len(got)


def test_kill_and_resume_equals_uninterrupted(tmp_path):
    """Ten SIGKILLs at points the test chooses: the first as soon as the store file exists (during
    start-up), the others each after a few more records are stored, two of them while `report` reads the
    same directory (the report killed once it holds the store, or its private copy of it, open). After every kill each stored job
    is whole; the final resume equals an uninterrupted run. Kill points are drawn from KILL_SEED."""
    ref = tmp_path / "ref"
    _run(ref)
    expected = records(ref)
    assert len(expected) > 40
    expected_jobs = _by_job(expected)
    total = len(expected_jobs)

    out = tmp_path / "killed"
    store = out / "results.sqlite"
    rng = random.Random(int(os.environ.get("KILL_SEED", "7")))
    rounds = 10
    # the kill points: records stored before each kill, rising, the last well before the end (so the run
    # is always still going when its point comes, however busy the machine)
    points = [0] + sorted(rng.sample(range(1, (3 * len(expected)) // 4), rounds - 1))
    kills, report_kills, progress = 0, 0, []
    for i, point in enumerate(points):
        log = tmp_path / f"run{i}.stderr"
        with log.open("wb") as err:
            proc = cli_popen("run", *ARGS, "--output", str(out), stderr=err)
        rep = None
        try:
            if i == 0:  # start-up: the store exists, maybe without its tables
                reached = _until(store.exists, proc, "the store file")
            else:
                if i in (3, 7):  # mid-report: `report` reads the directory the run is writing
                    _until(lambda: _records_stored(out) >= max(points[i - 1], point - 10), proc, "records before the report")
                    rep = cli_popen("report", str(out), "--output", str(tmp_path / f"report{i}"))
                    if _until(lambda: _has_open(rep.pid, store), rep, "report to open the store"):
                        rep.send_signal(signal.SIGKILL)
                        report_kills += 1
                reached = _until(lambda: _records_stored(out) >= point, proc, f"{point} records stored")
            if reached and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
        finally:
            proc.kill()
            proc.wait()
            if rep is not None:
                rep.kill()
                rep.wait()
        progress.append(_assert_whole_jobs(out, expected_jobs))
    assert kills == rounds, (f"the run ended before its kill point ({kills} of {rounds} kills; stored after each: "
                             f"{progress}); the last run's stderr ends: {_tail(log)}")
    assert report_kills >= 1, "report finished before it held the store open, both times"
    assert progress[-1] < total
    _run(out)
    assert records(out) == expected, f"jobs stored after each kill: {progress}"
    # the killed report left the run directory readable: a full report works now
    res = cli_completed("report", str(out), "--output", str(tmp_path / "report_final"), "--no-figures")
    assert res.returncode == 0, res.stderr[-2000:]


def test_second_writer_refused_while_first_runs(tmp_path):
    out = tmp_path / "shared"
    slow = [a if not a.startswith("scripted:") else "scripted:default,delay=0.2" for a in ["run", *ARGS, "--output", str(out)]]
    first = cli_popen(*slow, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            if (out / "config.json").exists():
                break
            time.sleep(0.1)
        second = cli_subprocess(*slow, timeout=60)
        assert second.returncode == 2
        assert "in use by another oversight-bench process" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        first.kill()
        first.wait()


# -- a run's identity lives in the store (issue 13.4) ---------------------------------------------------

_TASK = """\
name: t_rows
task_type: closed
loader: table
source:
  local:
    files: [rows.jsonl]
fields:
  question: q
  correct: right
  incorrect: wrong
binary:
  mode: pair
sample_size: 4
"""


def _rows(folder, start: int) -> None:
    folder.mkdir()
    (folder / "rows.jsonl").write_text("".join(
        f'{{"q": "Is {i} even?", "right": "{"yes" if i % 2 == 0 else "no"}", "wrong": "{"no" if i % 2 == 0 else "yes"}"}}\n'
        for i in range(start, start + 8)))


def _identity_run(tmp_path, out, *extra):
    return cli_subprocess("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "t_rows",
                          "--include-path", str(tmp_path / "tasks"), "--protocols", "qa_without_article",
                          "--answer-order", "random", "--quiet", "--output", str(out), *extra)


def test_resume_checks_the_identity_stored_in_the_run(tmp_path):
    """Without config.json a different --seed is still refused (the store holds the identity); a
    --data-dir with other rows is refused, naming the file; a copy of the same data is accepted;
    the same settings resume and write config.json again."""
    import shutil

    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t_rows.yaml").write_text(_TASK)
    _rows(tmp_path / "data_a", 0)
    _rows(tmp_path / "data_b", 100)  # the same file name, other questions
    shutil.copytree(tmp_path / "data_a", tmp_path / "data_copy")
    out = tmp_path / "run"
    first = _identity_run(tmp_path, out, "--data-dir", str(tmp_path / "data_a"), "--limit", "2")
    assert first.returncode == 0, first.stderr[-1500:]
    before = records(out)
    assert len(before) == 2

    (out / "config.json").unlink()
    res = _identity_run(tmp_path, out, "--data-dir", str(tmp_path / "data_a"), "--limit", "2", "--seed", "5")
    assert res.returncode == 2 and "different seed" in res.stderr and "recorded in its store" in res.stderr, res.stderr
    assert records(out) == before and not (out / "config.json").exists()

    res = _identity_run(tmp_path, out, "--data-dir", str(tmp_path / "data_b"), "--limit", "4")
    assert res.returncode == 2, res.stderr[-1500:]
    assert "task t_rows reads other data" in res.stderr and "rows.jsonl has other content" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and records(out) == before

    res = _identity_run(tmp_path, out, "--data-dir", str(tmp_path / "data_copy"), "--limit", "4")
    assert res.returncode == 0, res.stderr[-1500:]
    after = records(out)
    assert len(after) == 4 and set(before) <= set(after)
    assert (out / "config.json").exists()
    ident = json.loads(sqlite3.connect(out / "results.sqlite").execute("SELECT value FROM meta WHERE key='identity'").fetchone()[0])
    assert ident["seed"] == 0 and ident["tasks"] == ["t_rows"] and ident["protocols"] == ["qa_without_article"]
    assert set(ident["data"]["t_rows"]) == {"rows.jsonl"} and ident["task_versions"]["t_rows"]["sha256"]


def test_store_without_identity_or_config_is_not_resumed(tmp_path):
    """A run of an earlier version (no identity in its store) whose config.json is gone cannot be
    checked, so it is refused rather than resumed with whatever settings are given."""
    out = tmp_path / "run"
    args = ("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--protocols",
            "qa_without_article", "--limit", "2", "--quiet", "--output", str(out))
    assert cli_subprocess(*args).returncode == 0
    con = sqlite3.connect(out / "results.sqlite")
    con.execute("DELETE FROM meta")
    con.commit()
    con.close()
    (out / "config.json").unlink()
    res = cli_subprocess(*args, "--seed", "9")
    assert res.returncode == 2 and "neither config.json nor a recorded identity" in res.stderr, res.stderr
