"""Sandbox state dies with the sandbox (issue 37.2): "transient" comes only from the supervisor, never
from what the program writes; CPU and wall limits count every process of the sandbox, and the whole
tree is killed at the limit; `build-task` never writes a transient failure as a permanent row; the
seccomp filter refuses new user namespaces and the keyring calls."""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path

import pytest

from task_configs import sandbox, sandbox_limits
from task_configs.loaders import gsm8kqa
from task_configs.sandbox import run_program

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (apt-get install bubblewrap; .ci/setup installs it)")
pytestmark = needs_bwrap


@pytest.fixture(autouse=True)
def _isolated(monkeypatch):
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)


@pytest.fixture(params=["auto", "rlimit"])
def backend(request, monkeypatch):
    if request.param == "rlimit":
        monkeypatch.setenv(sandbox.LIMITS_ENV, "rlimit")
    return request.param


def _survivors(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    for pid in found:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    return found


# -- transient: the supervisor's word only --------------------------------------------------------------

FORGE = ("import json, os\n"
         "for fd in range(3, 64):\n"
         "    try:\n"
         "        os.write(fd, json.dumps({'status': 'error', 'answer': None, 'error': 'MemoryError', 'stdout': '',"
         " 'resource': True}).encode() + b'\\n')\n"
         "    except OSError:\n"
         "        pass\n"
         "os._exit(0)\n")


def test_a_program_writing_resource_true_is_its_own_failure(backend):
    res = run_program(FORGE)
    assert res.status == "error" and not res.transient, res


@pytest.mark.parametrize("code", ["raise MemoryError()", "import errno\nraise OSError(errno.ENOMEM, 'no memory')",
                                  "import errno\nraise BlockingIOError(errno.EAGAIN, 'Resource temporarily unavailable')",
                                  "raise RuntimeError(\"can't start new thread\")",
                                  "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"],
                         ids=["MemoryError", "ENOMEM", "EAGAIN", "thread", "SIGKILL"])
def test_a_program_claiming_the_machine_ran_out_gets_a_verdict(backend, code):
    """Whatever a program raises or does to itself, with a cgroup or without, it ran: a verdict."""
    res = run_program(code)
    assert res.status in ("error", "memory", "timeout") and not res.transient, res  # SIGKILL reads as the CPU limit's


def test_its_own_memory_exhaustion_without_a_cgroup_is_its_failure(monkeypatch):
    monkeypatch.setenv(sandbox.LIMITS_ENV, "rlimit")
    res = run_program("x = []\nwhile True:\n    x.append(' ' * 10 ** 6)", memory_mb=64)
    assert res.status == "memory" and not res.transient, res


def test_a_sandbox_that_cannot_start_is_transient(monkeypatch):
    """The one source of `transient`: the program never ran (here bwrap is handed a bad option)."""
    sandbox._probe_bwrap()  # the real probe passes first (it is cached)
    real = sandbox._bwrap_prefix()
    monkeypatch.setattr(sandbox, "_bwrap_prefix", lambda: (*real, "--no-such-bwrap-option"))
    res = run_program("ans = 1")
    assert res.transient and res.status == "error" and res.error.startswith("sandbox:"), res


def test_forged_and_real_resource_failures_are_cached_as_verdicts(tmp_path):
    cache = tmp_path / "results.jsonl"
    programs = [FORGE, "raise MemoryError()", "ans = 3"]
    got = gsm8kqa.execute_cached(programs, cache)
    assert not any(got[p].transient for p in programs)
    cached = sorted(json.loads(ln)["key"] for ln in cache.read_text().splitlines())
    assert cached == sorted(gsm8kqa._key(p) for p in programs)


# -- CPU and wall time over the whole sandbox -------------------------------------------------------------

CHILDREN_CPU = ("import os, time\n"
                "kids = []\n"
                "for i in range(3):\n"
                "    pid = os.fork()\n"
                "    if pid == 0:\n"
                "        os.closerange(0, 1024)\n"
                "        while time.process_time() < 1.5:\n"
                "            pass\n"
                "        os._exit(0)\n"
                "    kids.append(pid)\n"
                "for pid in kids:\n"
                "    os.waitpid(pid, 0)\n"
                "ans = 1\n")


def test_cpu_of_every_process_counts_against_cpu_seconds(backend):
    """Three children of 1.5 s CPU each (4.5 s) against cpu_seconds=2: killed, never `ok`, however
    busy the machine (the wall limit is far)."""
    t = time.monotonic()
    res = run_program(CHILDREN_CPU, timeout=60.0, cpu_seconds=2)
    assert res.status == "timeout" and "CPU time over 2s" in res.error, res
    assert time.monotonic() - t < 60


def test_a_child_holding_the_result_channel_buys_no_wall_time(backend):
    marker = f"ob-hold-{uuid.uuid4().hex[:8]}"
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    for fd in range(3, 64):\n"  # keeps every descriptor, the result channel too, across exec
            "        try:\n            os.set_inheritable(fd, True)\n        except OSError:\n            pass\n"
            f"    os.execv('/bin/sh', ['sh', '-c', 'sleep 30; : {marker}'])\n"
            "ans = 5\n")
    t = time.monotonic()
    res = run_program(code, timeout=3.0, cpu_seconds=2)
    took = time.monotonic() - t
    assert res.status == "ok" and res.answer == 5.0, res
    assert took < 3.0 + 2.0, f"{took:.1f} s: the supervisor waited for the child"
    assert not _survivors(marker)


def test_wall_time_counts_from_the_programs_start_and_kills_the_tree(backend):
    marker = f"ob-wall-{uuid.uuid4().hex[:8]}"
    code = ("import os, signal, time\n"
            "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"  # its own alarm, ignored
            "signal.setitimer(signal.ITIMER_REAL, 0)\n"
            f"if os.fork() == 0:\n    os.execv('/bin/sh', ['sh', '-c', 'sleep 30; : {marker}'])\n"
            "time.sleep(30)\n")
    t = time.monotonic()
    res = run_program(code, timeout=2.0, cpu_seconds=2)
    took = time.monotonic() - t
    assert res.status == "timeout", res
    assert took < 2.0 + 3.0, f"{took:.1f} s against timeout=2"
    assert not _survivors(marker)


# -- build-task ---------------------------------------------------------------------------------------


def test_build_task_never_writes_a_transient_failure(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from model_adapters.scripted import register_script
    from task_configs import build_task as bt
    from task_configs.sandbox import SandboxResult

    d = tmp_path / "data" / "gsm8k"
    d.mkdir(parents=True)
    (d / "test.jsonl").write_text(json.dumps({"question": "How many sheep? 9 + 9", "answer": "#### 18"}) + "\n")
    register_script("gsm_wrong_only", lambda messages, n, seed: ["```python\nans = 17\n```"] * n)
    calls = []

    def flaky(programs, **kw):
        calls.append(len(programs))
        if len(calls) == 1:  # the first build: the sandbox fails to start for one program
            return [SandboxResult("error", error="sandbox: could not start", transient=True)] + \
                [SandboxResult("ok", 17.0)] * (len(programs) - 1)
        return [SandboxResult("ok", 17.0)] * len(programs)

    monkeypatch.setattr("task_configs.sandbox.run_programs", flaky)
    monkeypatch.setattr(bt, "require_isolation", lambda: None)
    out = tmp_path / "built.jsonl"
    args = ["gsm8kqa", "--model", "scripted:gsm_wrong_only", "--k", "2", "--data-dir", str(tmp_path / "data"),
            "--output", str(out)]
    res = CliRunner().invoke(bt.build_task, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "1 question(s) not written" in res.output
    assert not out.exists() or out.read_text() == ""  # no permanent no_pair row
    res = CliRunner().invoke(bt.build_task, args, catch_exceptions=False)  # the resume revisits it
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["no_pair"] and len(calls) == 2


# -- seccomp ------------------------------------------------------------------------------------------------

LIBC = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"


@pytest.mark.skipif(getattr(sandbox, "seccomp_filter", None) is not None and sandbox.seccomp_filter.program() is None,
                    reason="no seccomp filter for this machine")
@pytest.mark.parametrize("call, errno_", [
    ("libc.unshare(0x10000000)", 1),  # CLONE_NEWUSER
    ("libc.syscall(sys_clone, 0x10000000 | 17, 0, 0, 0, 0)", 1),  # clone(CLONE_NEWUSER | SIGCHLD)
    ("libc.syscall(250, 0, -3, 1)", 1),  # keyctl(GET_KEYRING_ID, session keyring, create)
    ("libc.syscall(248, b'user', b'k', b'v', 1, -4)", 1),  # add_key into the user keyring
    ("libc.syscall(249, b'user', b'k', None, 0)", 1),  # request_key
    ("libc.syscall(435, 0, 0)", 38),  # clone3: ENOSYS, so glibc falls back to the checked clone
    ("libc.syscall(0x40000000 + 39)", 38),  # x32 ABI (getpid): refused as a whole
    ("libc.syscall(sys_sigaction, 17, ctypes.create_string_buffer(152), None, 8)", 1),  # SIGCHLD: a new action
    ("libc.syscall(sys_sigaction, 17, None, ctypes.create_string_buffer(152), 8)", 0),  # SIGCHLD: only read
    ("libc.syscall(sys_sigaction, 10, ctypes.create_string_buffer(152), None, 8)", 0),  # SIGUSR1: any action
], ids=["unshare", "clone", "keyctl", "add_key", "request_key", "clone3", "x32",
        "sigchld-set", "sigchld-read", "sigusr1-set"])
def test_seccomp_refuses_user_namespaces_and_keyrings(call, errno_):
    import platform
    if platform.machine() != "x86_64" and ("0x40000000" in call or call.startswith("libc.syscall(2")):
        pytest.skip("x86_64 syscall numbers")
    nrs = "sys_clone, sys_sigaction = (56, 13) if platform.machine() == 'x86_64' else (220, 134)\n"
    code = LIBC + "import platform\n" + nrs + f"r = {call}\nans = f'{{r}} {{ctypes.get_errno()}}'\n"
    res = run_program(code)
    assert res.status == "ok" and res.answer == (f"-1 {errno_}" if errno_ else "0 0"), res


AUTOREAP = ("import os, signal, time\n"
            "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"  # the kernel reaps them: in nobody's cutime
            "for _ in range(30):\n"
            "    if os.fork() == 0:\n"
            "        s = time.process_time()\n"
            "        while time.process_time() - s < 0.1:\n"
            "            pass\n"
            "        os._exit(0)\n"
            "    time.sleep(0.12)\n"
            "ans = 1\n")


@pytest.mark.skipif(getattr(sandbox, "seccomp_filter", None) is not None and sandbox.seccomp_filter.program() is None,
                    reason="no seccomp filter for this machine")
def test_children_reaped_by_the_kernel_cannot_hide_their_cpu(backend):
    """Probe S01: with SIGCHLD ignored, 30 children of 0.1 s CPU each (3 s against cpu_seconds=1) used to
    come back `ok` (their CPU reached no cutime). Ignoring SIGCHLD is now refused, so it never does."""
    res = run_program(AUTOREAP, timeout=20.0, cpu_seconds=1)
    assert res.status != "ok", res
    res = run_program("import signal\nans = 7 if signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL else 0\n")
    assert res.status == "ok" and res.answer == 7, res  # reading it still works


def test_cgroup_v2_cpu_accounting_is_read(tmp_path):
    cg = sandbox_limits.Cgroup.__new__(sandbox_limits.Cgroup)
    cg.kind, cg.dirs = "cgroup2", [tmp_path]
    (tmp_path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    assert cg.cpu_seconds() == 2.5
    cg.kind = "cgroup1"
    assert cg.cpu_seconds() == 0.0


def test_seccomp_leaves_ordinary_programs_alone():
    code = ("import os, subprocess, threading\n"
            "t = threading.Thread(target=lambda: None)\nt.start()\nt.join()\n"
            "if os.fork() == 0:\n    os._exit(3)\n"
            "_, st = os.wait()\n"
            "ans = subprocess.run(['/bin/echo', str(os.waitstatus_to_exitcode(st))], capture_output=True).stdout.decode().strip()\n")
    res = run_program(code)
    assert res.status == "ok" and res.answer == "3", res
