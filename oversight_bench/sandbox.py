"""Run model-written Python programs safely enough to grade them (GSM8KQA).

Each batch runs in one separate process: empty environment, `python -I`, a fresh temporary
directory as cwd (removed afterwards), its own session (so a timeout kills everything), and,
where the kernel allows it, a new network namespace with no interfaces (`unshare -rn`). Inside,
every program runs in its own forked child with CPU-time and memory rlimits, a wall-clock
timeout, and an audit hook that refuses sockets, subprocesses and writes outside its directory
(see `_sandbox_worker.py`). A program that breaks a rule is recorded as failing, never fatal.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_WORKER = Path(__file__).with_name("_sandbox_worker.py")


@dataclass(frozen=True)
class SandboxResult:
    """What one program did: `status` is ok, error, timeout, memory, forbidden or no_answer."""

    status: str
    answer: Any = None
    stdout: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def matches(self, expected: float, rel_tol: float = 1e-6, abs_tol: float = 1e-4) -> bool:
        """Whether the program's answer equals a numeric ground truth."""
        value = numeric(self.answer) if self.ok else None
        return value is not None and math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)


def numeric(value: Any) -> float | None:
    """A number from an answer (float, int, or text such as '$1,200' or '18.0'), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    text = str(value).strip().replace(",", "").replace("$", "").rstrip(".")
    try:
        f = float(text)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


@functools.lru_cache(maxsize=1)
def _netns_prefix() -> tuple[str, ...]:
    """`unshare -rn` if this kernel lets an unprivileged user drop the network, else nothing."""
    exe = shutil.which("unshare")
    if not exe:
        return ()
    try:
        ok = subprocess.run([exe, "-rn", "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (exe, "-rn") if ok else ()


def run_programs(
    programs: list[str],
    *,
    timeout: float = 5.0,
    cpu_seconds: int = 5,
    memory_mb: int = 256,
    max_output: int = 4000,
    workers: int | None = None,
) -> list[SandboxResult]:
    """Execute each program in the sandbox; one result per program, in order.

    Large batches are split over `workers` sandbox processes (default: up to 4, one per CPU).
    """
    if not programs:
        return []
    workers = workers or min(4, os.cpu_count() or 1)
    if workers > 1 and len(programs) >= 32:
        from concurrent.futures import ThreadPoolExecutor

        size = -(-len(programs) // workers)
        chunks = [programs[i:i + size] for i in range(0, len(programs), size)]
        limits = dict(timeout=timeout, cpu_seconds=cpu_seconds, memory_mb=memory_mb, max_output=max_output)
        with ThreadPoolExecutor(len(chunks)) as pool:
            parts = pool.map(lambda c: _run_batch(c, **limits), chunks)
        return [r for part in parts for r in part]
    return _run_batch(programs, timeout=timeout, cpu_seconds=cpu_seconds, memory_mb=memory_mb, max_output=max_output)


def _run_batch(programs: list[str], *, timeout: float, cpu_seconds: int, memory_mb: int, max_output: int) -> list[SandboxResult]:
    root = tempfile.mkdtemp(prefix="ob-sandbox-")
    env = {"PATH": "/usr/bin:/bin", "HOME": root, "TMPDIR": root, "LANG": "C.UTF-8",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    job = {"root": root, "programs": programs, "cpu": int(cpu_seconds), "memory_mb": int(memory_mb),
           "timeout": float(timeout), "max_output": int(max_output)}
    cmd = [*_netns_prefix(), sys.executable, "-I", "-c", _WORKER.read_text()]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=root, env=env, start_new_session=True)
    budget = 10.0 + len(programs) * (timeout + 1.0)
    try:
        out, err = proc.communicate(json.dumps(job).encode(), timeout=budget)
    except subprocess.TimeoutExpired:
        out, err = b"", b"sandbox worker exceeded its overall time budget"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        shutil.rmtree(root, ignore_errors=True)
    results = []
    for line in out.decode(errors="replace").splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        results.append(SandboxResult(d.get("status", "error"), d.get("answer"), d.get("stdout", ""), d.get("error", "")))
    reason = err.decode(errors="replace").strip().splitlines()[-1:] or ["sandbox worker stopped"]
    while len(results) < len(programs):
        results.append(SandboxResult("error", error=reason[0][:300]))
    return results


def run_program(code: str, **limits: Any) -> SandboxResult:
    """Execute one program in the sandbox."""
    return run_programs([code], **limits)[0]
