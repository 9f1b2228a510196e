"""The sandbox's limits hold per sandbox, whatever the program does: its processes die with its run,
all of its memory is counted, no sandbox (or other user) can use up another's limits, a forged
result is only the forger's failure, and a failure the machine caused is never cached as a verdict."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from task_configs import sandbox
from task_configs.loaders import gsm8kqa
from task_configs.sandbox import run_program, run_programs

from sandbox_watch import SandboxWatch

FAST = dict(timeout=3.0, cpu_seconds=2, memory_mb=128)
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (apt-get install bubblewrap; .ci/setup installs it)")


def _cgroups() -> bool:
    probe = getattr(sandbox, "limits_backend", None)
    return probe is None or probe() != "rlimit"


needs_cgroups = pytest.mark.skipif(not _cgroups(), reason="no writable cgroup (v2 with memory+pids, or v1 memory "
                                   "and pids) here: the rlimit fallback does not count all memory (see README)")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch):
    monkeypatch.setenv(sandbox.UNSAFE_ENV, "")
    monkeypatch.delenv(sandbox.UNSAFE_ENV)


@pytest.fixture(params=["auto", "rlimit"])
def backend(request, monkeypatch):
    """Both ways of limiting: cgroups where this machine has them, and the rlimit fallback."""
    if request.param == "rlimit":
        monkeypatch.setenv(getattr(sandbox, "LIMITS_ENV", "OVERSIGHT_BENCH_SANDBOX_LIMITS"), "rlimit")
    return request.param


@pytest.fixture()
def sandbox_end(monkeypatch) -> SandboxWatch:
    """`sandbox_end.wait_ended()`: returns once every process of the sandboxes run so far is gone."""
    return SandboxWatch(monkeypatch)


def _marker() -> str:
    return f"ob-limit-{uuid.uuid4().hex[:12]}"


def _survivors(marker: str) -> list[int]:
    """Processes on the host whose command line mentions `marker`; killed, so a failing test leaves none."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return found


_DROP_DEATH_SIGNAL = ("import ctypes, os\n"
                      "libc = ctypes.CDLL(None)\n"
                      "libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG: none\n"
                      "os.setsid() if os.getpid() != os.getsid(0) else None\n")


@needs_bwrap
def test_a_program_that_drops_its_death_signal_does_not_outlive_its_run(backend, sandbox_end):
    marker = _marker()
    # the launcher itself (whatever its pid) drops its death signal, leaves its session and becomes a
    # sleeper: its result channel closes on exec, so the run ends while it still sleeps
    code = _DROP_DEATH_SIGNAL + f"os.execv('/bin/sh', ['sh', '-c', 'sleep 1000; :', {marker!r}])"
    res = run_program(code, **FAST)
    sandbox_end.wait_ended()
    assert not _survivors(marker)
    assert res.status == "error"


@needs_bwrap
def test_a_child_that_drops_its_death_signal_does_not_outlive_its_run(backend, sandbox_end):
    marker = _marker()
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            + "".join("    " + ln + "\n" for ln in _DROP_DEATH_SIGNAL.splitlines()) +
            f"    os.execv('/bin/sh', ['sh', '-c', 'sleep 1000; :', {marker!r}])\n"
            "time.sleep(0.3)\nans = 1")
    res = run_program(code, **FAST)
    sandbox_end.wait_ended()
    assert not _survivors(marker)
    assert res.ok and res.answer == 1.0


@needs_bwrap
@needs_cgroups
def test_memfd_pages_count_against_the_memory_limit():
    # 16 x 15 MB of memfd pages: no file over the file-size limit, none of it in the address space
    code = ("import os\nfds = []\n"
            "for i in range(16):\n"
            "    fd = os.memfd_create('x')\n"
            "    os.write(fd, b'x' * (15 * 1024 * 1024))\n"
            "    fds.append(fd)\n"
            "ans = 15 * len(fds)")
    res = run_program(code, timeout=10.0, cpu_seconds=5, memory_mb=64)
    assert res.status == "memory", res
    assert not res.transient  # its own limit: a verdict


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to start processes as the sandbox's old shared uid")
def test_processes_of_other_users_do_not_use_up_a_sandboxs_process_limit(backend):
    # 40 processes of `nobody` outside: the sandbox's process limit is its own, not nobody's
    others = [subprocess.Popen(["sleep", "30"], user=65534, group=65534, extra_groups=[]) for _ in range(40)]
    try:
        res = run_program("import subprocess\nans = sum(subprocess.run(['true']).returncode == 0 for _ in range(3))",
                          **FAST)
    finally:
        for p in others:
            p.kill()
            p.wait()
    assert res.ok and res.answer == 3.0, res


_HOG = ("import os, time\n"
        "kids = 0\n"
        "while True:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        try:\n"
        "            fd = os.memfd_create('x')\n"
        "            os.write(fd, b'x' * (8 * 1024 * 1024))\n"
        "        except OSError:\n"
        "            pass\n"
        "        time.sleep(4)\n"
        "        os._exit(0)\n"
        "    kids += 1\n"
        "time.sleep(3)\nans = kids")
_HONEST = ("import subprocess, time\ntime.sleep(0.8)\n"
           "ok = sum(subprocess.run(['true']).returncode == 0 for _ in range(4))\n"
           "blob = bytearray(32 * 1024 * 1024)\n"
           "ans = ok * 10 + {i}")


@needs_bwrap
def test_many_sandboxes_at_once_one_hostile_the_rest_unaffected(backend):
    n = 7
    programs = [_HONEST.format(i=i) for i in range(n)]
    programs.insert(2, _HOG)
    t0 = time.monotonic()
    res = run_programs(programs, timeout=8.0, cpu_seconds=4, memory_mb=128, workers=n + 1)
    assert time.monotonic() - t0 < 30
    hog = res.pop(2)
    assert hog.status in ("ok", "memory", "timeout", "error")
    assert [(r.status, r.answer) for r in res] == [("ok", 40.0 + i) for i in range(n)]


# -- results: a forged or unreadable one is the program's own failure ---------------------------
def _forge(payload: bytes) -> str:
    return ("import os\n"
            "for fd in range(3, 32):\n"
            "    try:\n"
            f"        os.write(fd, {payload!r})\n"
            "    except OSError:\n"
            "        pass\n"
            "os._exit(0)")


_FORGED = [
    b'{"status": "ok", "answer": ' + b"9" * 400 + b', "error": "", "stdout": ""}',
    b'{"status": "ok", "answer": ' + b"9" * 5000 + b', "error": "", "stdout": ""}',
    b'{"status": "ok", "answer": 1e999, "error": "", "stdout": ""}',
    b'{"status": "ok", "answer": NaN, "error": "", "stdout": ""}',
    b'{"status": "ok", "answer": ' + b"[" * 50000 + b"]" * 50000 + b', "error": "", "stdout": ""}',
    b'{"status": "ok", "answer": {"a": 1}, "error": "", "stdout": ""}',
    b'{"status": "ok", "answer": 1, "error": 7, "stdout": ""}',
    b'["status", "ok"]',
]


@needs_bwrap
def test_a_result_the_reader_cannot_convert_is_the_programs_own_failure():
    res = run_programs([_forge(p) for p in _FORGED] + ["ans = 18"], **FAST)
    assert [r.status for r in res[:-1]] == ["error"] * len(_FORGED)
    assert res[-1].ok and res[-1].answer == 18.0


@needs_bwrap
def test_a_huge_integer_result_does_not_abort_loading(tmp_path):
    cache = tmp_path / "results.jsonl"
    programs = [_forge(_FORGED[0]), _forge(_FORGED[1]), "ans = 7"]
    got = gsm8kqa.execute_cached(programs, cache)
    assert [got[p].status for p in programs] == ["error", "error", "ok"]
    again = gsm8kqa.execute_cached(programs, cache)  # and the cache it wrote reads back
    assert [again[p].status for p in programs] == ["error", "error", "ok"]


def test_a_corrupt_cache_line_is_skipped(tmp_path):
    cache = tmp_path / "results.jsonl"
    key = gsm8kqa._key("ans = 7")
    cache.write_text("\n".join([
        json.dumps({"key": key, "status": "ok", "answer": int("9" * 400), "error": ""}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"key": ["unhashable"], "status": "ok"}),
        json.dumps({"key": key, "status": "bogus", "answer": 1.0}),
        "9" * 5000,
    ]) + "\n")
    got = gsm8kqa.execute_cached(["ans = 7"], cache)
    assert got["ans = 7"].status == "ok" and got["ans = 7"].answer == 7.0


# -- what is cached ------------------------------------------------------------------------------
@needs_bwrap
def test_a_failure_a_program_reports_is_its_verdict_and_cached(backend, tmp_path):
    """Issue 37.2 changed this test: a program's own report of running out (which a program can raise
    or forge at will) was taken as the machine's failure and never cached; now only the supervisor
    says `transient` (a sandbox whose program never started), so each of these is a cached verdict."""
    cache = tmp_path / "results.jsonl"
    programs = ["import errno\nraise BlockingIOError(errno.EAGAIN, 'Resource temporarily unavailable')",
                "raise MemoryError()",
                "import errno\nraise OSError(errno.ENOMEM, 'Cannot allocate memory')",
                "raise RuntimeError(\"can't start new thread\")",
                "raise ValueError('its own bug')"]
    got = gsm8kqa.execute_cached(programs, cache)
    assert [got[p].status for p in programs] == ["error", "memory", "error", "error", "error"]
    cached = [json.loads(ln)["key"] for ln in cache.read_text().splitlines()]
    assert sorted(cached) == sorted(gsm8kqa._key(p) for p in programs)


@needs_bwrap
@needs_cgroups
def test_reaching_its_own_limits_is_a_cached_verdict(tmp_path):
    cache = tmp_path / "results.jsonl"
    programs = ["import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(5)\n        os._exit(0)",
                "x = []\nwhile True:\n    x.append(' ' * 10 ** 6)"]
    got = gsm8kqa.execute_cached(programs, cache)
    assert [got[p].status for p in programs] == ["error", "memory"]
    assert "BlockingIOError" in got[programs[0]].error
    cached = [json.loads(ln)["key"] for ln in cache.read_text().splitlines()]
    assert sorted(cached) == sorted(gsm8kqa._key(p) for p in programs)
