"""Readers read: every command that reads a finished run (report, export, leaderboard, view, `judge
--from`, salvage) works with the run on a real read-only mount (bubblewrap: we run as root, so chmod
would stop nothing) and leaves the run folder byte for byte as it was (no -wal, -shm or lock added).
A run that crashed with committed records still in its write-ahead log is read with them."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from fake_runs import make_run
from helpers import FAKE, cli_subprocess

BWRAP = shutil.which("bwrap")


def _sandbox(writable: Path) -> list[str]:
    """The whole file system read-only, but for `writable` (where the commands write their output)."""
    return [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(writable), str(writable), "--"]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    if BWRAP is None:
        pytest.skip("bubblewrap (bwrap) is not on PATH: no read-only mount to test on")
    out = tmp_path_factory.mktemp("writable")
    probe = subprocess.run([*_sandbox(out), "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot create its namespace here: {probe.stderr.strip()[:200]}")
    return out


def _ro_cli(writable: Path, *args: str) -> subprocess.CompletedProcess:
    return cli_subprocess(*args, prefix=_sandbox(writable), timeout=300,
                          env={"MPLCONFIGDIR": str(writable / "mpl"), "TMPDIR": str(writable)})


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _ok(res: subprocess.CompletedProcess, what: str) -> None:
    assert res.returncode == 0 and "Traceback" not in res.stderr, f"{what}: {res.stderr[-3000:]}"


@pytest.mark.timeout(600)
def test_readers_read_a_finished_run_on_a_read_only_mount(sandbox, tmp_path):
    run = make_run(tmp_path / "run", n_questions=2)
    before = _snapshot(run)
    assert "results.sqlite" in before and not any(name.endswith(("-wal", "-shm")) for name in before)  # closed cleanly
    out = sandbox / "finished"
    out.mkdir()
    assert subprocess.run([*_sandbox(out), "touch", str(run / "probe")], capture_output=True).returncode != 0, \
        "the run folder is writable inside the sandbox: the test would prove nothing"

    _ok(_ro_cli(out, "report", str(run), "--output", str(out / "report"), "--no-figures"), "report")
    assert (out / "report").is_dir()
    res = _ro_cli(out, "export", str(run))
    _ok(res, "export")
    decisions = sum('"kind": "decision"' in line for line in res.stdout.splitlines())
    assert decisions > 0
    _ok(_ro_cli(out, "leaderboard", str(run), "--output", str(out / "board")), "leaderboard")
    _ok(_ro_cli(out, "view", str(run), "--export", str(out / "view")), "view --export")
    assert (out / "view" / "index.html").is_file()
    _ok(_ro_cli(out, "judge", "--from", str(run), "--judge", FAKE, "--output", str(out / "judged"), "--quiet"), "judge --from")
    assert (out / "judged" / "results.sqlite").is_file()
    res = _ro_cli(out, "salvage", str(run), "--output", str(out / "salvaged"))
    _ok(res, "salvage")
    assert f"{decisions} job(s)" in res.stdout, res.stdout  # everything copied: the run is not "damaged"

    assert _snapshot(run) == before  # no byte changed, no -wal, -shm or lock added


def _crash_with_a_logged_record(run: Path) -> None:
    """A process commits one more decision into the write-ahead log and dies before any checkpoint."""
    code = ("import os, sqlite3, sys\n"
            "con = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "con.execute('PRAGMA wal_autocheckpoint=0')\n"
            "con.execute(\"INSERT INTO records (kind, job_key, seq, judge, agent, protocol, task, question_id, assignment,"
            " answer_order, round, data, created) SELECT kind, 'crashed-job', seq, judge, agent, protocol, task, question_id,"
            " assignment, answer_order, round, data, created FROM records WHERE kind='decision' LIMIT 1\")\n"
            "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", code, str(run / "results.sqlite")], check=True)


@pytest.mark.timeout(300)
def test_a_crashed_runs_logged_records_are_read_on_a_read_only_mount(sandbox, tmp_path):
    """Committed records still in the -wal are read (an immutable open would drop them), with or
    without the log's -shm (readers read a private copy of the store and its log)."""
    run = make_run(tmp_path / "run", n_questions=1)
    _crash_with_a_logged_record(run)
    assert {"results.sqlite-wal", "results.sqlite-shm"} <= set(os.listdir(run))
    immutable = sqlite3.connect(f"file:{run / 'results.sqlite'}?immutable=1", uri=True)
    assert immutable.execute("SELECT COUNT(*) FROM records WHERE job_key='crashed-job'").fetchone()[0] == 0
    immutable.close()
    before = _snapshot(run)
    out = sandbox / "crashed"
    out.mkdir()

    res = _ro_cli(out, "export", str(run))
    _ok(res, "export")
    assert '"job_key": "crashed-job"' in res.stdout
    assert _snapshot(run) == before

    (run / "results.sqlite-shm").unlink()  # a read-only folder without the log's -shm: read from a private copy
    before = _snapshot(run)
    res = _ro_cli(out, "export", str(run))
    _ok(res, "export without -shm")
    assert '"job_key": "crashed-job"' in res.stdout
    assert _snapshot(run) == before


@pytest.mark.timeout(300)
@pytest.mark.parametrize("shm", [True, False])
def test_a_reader_beside_a_write_ahead_log_changes_no_byte_of_the_run(tmp_path, shm):
    """Beside a -wal with committed records, with or without its -shm: readers read those records
    from a private copy; no file of the run is added (no -shm created) and none changes (the -shm's
    bytes included), and the copy is gone afterwards."""
    import tempfile

    from helpers import cli

    run = make_run(tmp_path / "run", n_questions=1)
    _crash_with_a_logged_record(run)
    if not shm:
        (run / "results.sqlite-shm").unlink()
    before = _snapshot(run)
    temps = set(os.listdir(tempfile.gettempdir()))
    res = cli("export", str(run))
    assert res.exit_code == 0 and '"job_key": "crashed-job"' in res.output, res.output[-2000:]
    assert _snapshot(run) == before
    res = cli("report", str(run), "--output", str(tmp_path / "rep"), "--no-figures")
    assert res.exit_code == 0, res.output[-2000:]
    assert _snapshot(run) == before
    res = cli("salvage", str(run), "--output", str(tmp_path / "salv"))
    assert res.exit_code == 0, res.output[-2000:]
    assert _snapshot(run) == before
    assert not {n for n in set(os.listdir(tempfile.gettempdir())) - temps if n.startswith("oversight-bench-read-")}
