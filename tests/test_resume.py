"""SIGKILL a run at random moments; each resume must end with the records of an uninterrupted run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from helpers import REPO, records
from test_core import needs_example

pytestmark = needs_example

ARGS = ["--judge", "scripted:default,delay=0.01", "--agent", "scripted:default,delay=0.01",
        "--tasks", "arith", "--protocols", "qa_without_article,consultancy,debate,open_debate",
        "--limit", "10", "--seed", "3", "--quiet"]


def _cmd(out):
    return [sys.executable, "-m", "oversight_bench.cli", "run", *ARGS, "--output", str(out)]


def _run(out) -> None:
    res = subprocess.run(_cmd(out), capture_output=True, text=True, cwd=REPO, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]


def test_kill_and_resume_equals_uninterrupted(tmp_path):
    ref = tmp_path / "ref"
    t0 = time.monotonic()
    _run(ref)
    duration = time.monotonic() - t0
    expected = records(ref)
    assert len(expected) > 40

    out = tmp_path / "killed"
    rng = random.Random(int(os.environ.get("KILL_SEED", "7")))
    kills = 0
    for _ in range(6):
        proc = subprocess.Popen(_cmd(out), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, max(0.4, duration * 0.9)))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 1, "the run finished before any kill; make it longer"
    _run(out)
    assert records(out) == expected


def test_second_writer_refused_while_first_runs(tmp_path):
    out = tmp_path / "shared"
    slow = [a if not a.startswith("scripted:") else "scripted:default,delay=0.2" for a in _cmd(out)]
    first = subprocess.Popen(slow, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        from oversight_bench.store import LOCK_NAME
        for _ in range(100):
            if (out / "config.json").exists():
                break
            time.sleep(0.1)
        second = subprocess.run(slow, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert "in use by another oversight-bench process" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        first.kill()
        first.wait()
