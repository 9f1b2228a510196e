"""Run model-written Python programs (GSM8KQA) under OS-level isolation, to grade them.

Every program gets its own bubblewrap (`bwrap`) sandbox, so nothing a program does can reach
another program's result: a read-only view of only what Python needs (/usr, the Python install and
its site-packages, even under the host's /tmp; no home, /root, data, results or other host /tmp
files), a private size-capped tmpfs /tmp holding the program's own folder /tmp/work, no network,
new PID/IPC/UTS (and, when not root, user) namespaces, a new session, an empty environment, and
rlimits on CPU time, memory, processes, open files and file size (set by the launcher
`sandbox_worker.py` before the program runs; started by root, the launcher first drops to uid
65534, since process limits do not bind uid 0). When the launcher exits, the sandbox's PID
namespace dies and the kernel kills every process the program started; on a timeout the supervisor
kills bwrap, which takes the namespace down with it (`--die-with-parent`). The result is one JSON
object the launcher writes to the sandbox's stdout; the supervisor reads at most `_RESULT_BYTES`
and checks every field's type and size.

No bwrap (or no namespaces) means no execution: `BenchError` says how to install it.
`--unsafe-exec` (env OVERSIGHT_BENCH_UNSAFE_EXEC=1) runs programs without isolation instead
(same launcher and limits, a temp folder and an empty environment, but the user's files and
network), with a warning on stderr.
"""

from __future__ import annotations

import functools
import json
import math
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oversight_bench.api import BenchError

UNSAFE_ENV = "OVERSIGHT_BENCH_UNSAFE_EXEC"
STATUSES = ("ok", "error", "timeout", "memory", "no_answer")
_WORKER = Path(__file__).with_name("sandbox_worker.py")
_NOBODY = 65534
_RESULT_BYTES = 1 << 20
_STARTUP_GRACE = 10.0  # seconds for bwrap + interpreter start on top of the program's own timeout
_TMPFS_BYTES = 64 * 1024 * 1024
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install bubblewrap)"


@dataclass(frozen=True)
class SandboxResult:
    """What one program did: `status` is one of STATUSES."""

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


def _enable_unsafe(ctx, param, value) -> None:
    if value:
        os.environ[UNSAFE_ENV] = "1"


#: the `--unsafe-exec` flag as click option attributes: `task_configs` adds it to the core's commands
#: that load tasks (hook `register_run_options`) and to `build-task`
UNSAFE_EXEC_FLAG = "--unsafe-exec"
UNSAFE_EXEC_ATTRS: dict[str, Any] = {
    "is_flag": True, "expose_value": False, "callback": _enable_unsafe, "is_eager": True,
    "help": "run model-written programs (GSM8KQA) WITHOUT the bubblewrap sandbox: they can "
            "then read and write your files and use the network"}


def unsafe_exec_option(f):
    """The `--unsafe-exec` click flag, as a decorator for this plugin's own commands."""
    import click

    return click.option(UNSAFE_EXEC_FLAG, **UNSAFE_EXEC_ATTRS)(f)


def _unsafe() -> bool:
    return os.environ.get(UNSAFE_ENV, "").strip().lower() in ("1", "true", "yes")


@functools.lru_cache(maxsize=1)
def _warn_unsafe() -> None:
    print("warning: --unsafe-exec: model-written programs run WITHOUT isolation (no bubblewrap); "
          "they can read and write your files and use the network", file=sys.stderr, flush=True)


def _python_paths() -> list[str]:
    """Folders the sandboxed interpreter needs: its install, the venv, its site-packages, numpy's."""
    import importlib.util

    paths = {os.path.realpath(sys.base_prefix), os.path.abspath(sys.prefix), os.path.realpath(sys.prefix),
             *_site_paths()}
    spec = importlib.util.find_spec("numpy")
    if spec and spec.origin:
        paths.add(os.path.dirname(os.path.dirname(os.path.realpath(spec.origin))))
    keep = []
    for p in sorted(paths):
        if p == "/" or p == "/usr" or p.startswith("/usr/") or any(p.startswith(k + "/") for k in keep):
            continue
        keep.append(p)
    return keep


@functools.lru_cache(maxsize=1)
def _worker_source() -> str:
    """The sandboxed worker's code, read once per process (it is passed to every program's `python -c`)."""
    return _WORKER.read_text()


@functools.lru_cache(maxsize=1)
def _site_paths() -> list[str]:
    """This interpreter's site-packages (the launcher runs with -S, so it adds them itself)."""
    import site

    return [p for p in site.getsitepackages() if os.path.isdir(p)]


@functools.lru_cache(maxsize=1)
def _bwrap_prefix() -> tuple[str, ...]:
    exe = shutil.which("bwrap")
    if exe is None:
        return ()
    # --as-pid-1: the launcher is the namespace's init, so when bwrap reports its exit the kernel has
    # already killed every process left inside (with bwrap's own init, bwrap exits first)
    args = [exe, "--unshare-pid", "--as-pid-1", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr"]
    if os.geteuid() == 0:  # no user namespace for root: keep only what dropping to nobody needs
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = "/" + name
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    for p in ("/etc/ld.so.cache", "/etc/localtime"):
        args += ["--ro-bind-try", p, p]
    # the private /tmp and the program's own empty folder first, then Python's folders: a venv under
    # the host's /tmp stays visible (bind-mounted over the tmpfs), and /tmp itself stays 1777
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(_TMPFS_BYTES), "--perms", "1777", "--tmpfs", "/tmp",
             "--perms", "1777", "--dir", "/tmp/work"]
    made = {Path("/tmp"), Path("/tmp/work")}
    for p in _python_paths():
        if Path(p) in (Path("/tmp"), Path("/tmp/work")) or Path("/tmp/work") in Path(p).parents:
            raise BenchError(f"Python lives at {p}, where the sandbox puts the program's private folder; "
                             "expected a Python install or venv outside /tmp/work (and not /tmp itself)")
        for parent in reversed(Path(p).parents[:-1]):  # bwrap would copy e.g. ~/.pyenv's 0700 to nobody's loss
            if parent not in made:
                made.add(parent)
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", p, p]
    args += ["--chdir", "/tmp/work"]
    for k, v in _ENV.items():
        args += ["--setenv", k, v]
    return tuple(args)


@functools.lru_cache(maxsize=1)
def _probe_bwrap() -> None:
    """Start one sandbox; raise BenchError (one line) if that is impossible here."""
    hint = "or pass --unsafe-exec to run them without isolation, at your own risk"
    prefix = _bwrap_prefix()
    if not prefix:
        raise BenchError(f"model-written programs run only inside bubblewrap, and `bwrap` is not on PATH: "
                         f"{INSTALL_HINT}, {hint}")
    try:
        proc = subprocess.run([*prefix, "/usr/bin/echo", "ok"], capture_output=True,
                              timeout=60, env={"PATH": _ENV["PATH"]}, stdin=subprocess.DEVNULL)
        why = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        ok = proc.returncode == 0 and proc.stdout.strip() == b"ok"
    except (OSError, subprocess.SubprocessError) as exc:
        ok, why = False, [str(exc)]
    if not ok:
        raise BenchError(f"bubblewrap cannot create its sandbox here ({why[0][:200]}): it needs user namespaces "
                         "(e.g. sysctl kernel.unprivileged_userns_clone=1 or "
                         f"kernel.apparmor_restrict_unprivileged_userns=0) or root; {hint}")
    res = _run_bwrap("ans = 6 * 7", job=_job(timeout=30.0, cpu_seconds=10, memory_mb=256, max_output=100), hard=60.0)
    if not (res.ok and res.answer == 42.0):  # e.g. a Python install the sandbox does not show
        raise BenchError(f"the bubblewrap sandbox starts but cannot run this Python in it ({res.status}: "
                         f"{res.error[:200]}); {hint}")


def require_isolation() -> None:
    """Check, before any work, that programs can run: bwrap works, or --unsafe-exec was given."""
    if _unsafe():
        _warn_unsafe()
    else:
        _probe_bwrap()


def run_programs(
    programs: list[str],
    *,
    timeout: float = 5.0,
    cpu_seconds: int = 5,
    memory_mb: int = 256,
    max_output: int = 4000,
    workers: int | None = None,
) -> list[SandboxResult]:
    """Execute each program in its own sandbox; one result per program, in order.

    Up to `workers` sandboxes run at once (default: one per CPU, at most 4).
    """
    if not programs:
        return []
    require_isolation()
    job = _job(timeout=timeout, cpu_seconds=cpu_seconds, memory_mb=memory_mb, max_output=max_output)
    run = functools.partial(_run_unsafe if _unsafe() else _run_bwrap, job=job, hard=timeout + _STARTUP_GRACE)
    workers = max(1, min(workers or min(4, os.cpu_count() or 1), len(programs)))
    if workers == 1:
        return [run(code) for code in programs]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, programs))


def _job(*, timeout: float, cpu_seconds: int, memory_mb: int, max_output: int) -> dict:
    """The launcher's limits. Started by root, it drops to nobody: RLIMIT_NPROC does not bind uid 0."""
    job = {"cpu": int(cpu_seconds), "memory_mb": int(memory_mb), "timeout": float(timeout),
           "max_output": int(max_output), "file_mb": 16, "site_paths": _site_paths()}
    if _unsafe():
        return {**job, "uid": None, "nproc": None}
    return {**job, "uid": _NOBODY if os.geteuid() == 0 else None, "nproc": 32}


def run_program(code: str, **limits: Any) -> SandboxResult:
    """Execute one program in the sandbox."""
    return run_programs([code], **limits)[0]


def _run_bwrap(code: str, *, job: dict, hard: float) -> SandboxResult:
    argv = [*_bwrap_prefix(), sys.executable, "-I", "-S", "-c", _worker_source()]
    return _supervise(argv, {**job, "code": code}, hard, cwd="/", env={"PATH": _ENV["PATH"]})


def _run_unsafe(code: str, *, job: dict, hard: float) -> SandboxResult:
    root = tempfile.mkdtemp(prefix="ob-unsafe-")
    try:
        argv = [sys.executable, "-I", "-S", "-c", _worker_source()]
        return _supervise(argv, {**job, "code": code}, hard, cwd=root, env={**_ENV, "HOME": root, "TMPDIR": root})
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _supervise(argv: list[str], job: dict, hard: float, *, cwd: str, env: dict) -> SandboxResult:
    """Start one sandbox, feed it the job, read its result (bounded in bytes and time), reap it."""
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=env, start_new_session=True)
    except OSError as exc:
        return SandboxResult("error", error=f"sandbox: could not start: {exc}")
    pending = memoryview(json.dumps(job).encode())
    out, err, overflow, timed_out = bytearray(), bytearray(), False, False
    deadline = time.monotonic() + hard
    os.set_blocking(proc.stdin.fileno(), False)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdin, selectors.EVENT_WRITE)
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    try:
        while sel.get_map() and not overflow:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                if key.fileobj is proc.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:65536]):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(out) > _RESULT_BYTES:
                    overflow = True
                del err[4096:]
    finally:
        sel.close()
        if not (timed_out or overflow):  # output closed: let bwrap report the exit status itself
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if proc.poll() is None:
            try:  # the sandbox's init dies with bwrap (--die-with-parent), and with it every process inside
                os.killpg(proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
        rc = proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if not f.closed:
                f.close()
    if timed_out:
        return SandboxResult("timeout", error=f"wall time over {job['timeout']}s")
    if overflow:
        return SandboxResult("error", error=f"result larger than {_RESULT_BYTES} bytes")
    return _parse(bytes(out), rc, err.decode(errors="replace"), job)


def _parse(raw: bytes, rc: int, err: str, job: dict) -> SandboxResult:
    """Check the launcher's JSON: exactly the four fields, each of the expected type and size."""
    if not raw:
        said = [ln.strip() for ln in err.splitlines() if ln.strip()]
        if said:  # bwrap or the launcher failed before the program ran (the program has no stderr)
            return SandboxResult("error", error=f"sandbox: {said[-1][:300]}")
        if rc in (128 + 24, 128 + 9, -24, -9):  # SIGXCPU / SIGKILL at the hard CPU limit
            return SandboxResult("timeout", error=f"CPU time over {job['cpu']}s")
        return SandboxResult("error", error=f"program ended without a result (exit status {rc})")
    try:
        d = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return SandboxResult("error", error="malformed result")
    if not isinstance(d, dict) or set(d) != {"status", "answer", "error", "stdout"}:
        return SandboxResult("error", error="malformed result")
    status, answer, error, stdout = d["status"], d["answer"], d["error"], d["stdout"]
    if isinstance(answer, int) and not isinstance(answer, bool):
        answer = float(answer)
    valid = (status in STATUSES and isinstance(error, str) and len(error) <= 500
             and isinstance(stdout, str) and len(stdout) <= job["max_output"]
             and (answer is None or isinstance(answer, bool) or (isinstance(answer, float) and math.isfinite(answer))
                  or (isinstance(answer, str) and len(answer) <= 1000)))
    if not valid:
        return SandboxResult("error", error="malformed result")
    return SandboxResult(status, answer, stdout, error)
