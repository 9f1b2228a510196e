"""Run model-written Python programs (GSM8KQA) under OS-level isolation, to grade them.

Every program gets its own bubblewrap (`bwrap`) sandbox, so nothing a program does can reach
another program's result: a read-only view of only what Python needs (/usr, the Python install and
its site-packages, even under the host's /tmp; no home, /root, data, results or other host /tmp
files), private size-capped tmpfs /tmp (holding the program's folder /tmp/work) and /dev/shm, no
network, new PID/IPC/UTS (and, when not root, user) namespaces, a new session and an empty
environment. Started by root, the launcher `sandbox_worker.py` drops to a uid that no other process
on the machine has (one per running sandbox, reserved with a lock file), so nothing counted per uid
is shared.

Limits, per sandbox (see `sandbox_limits`):
- lifetime: bwrap's own init is the PID namespace's pid 1 and the supervisor kills it by pidfd when
  the run ends; the kernel then kills every process in the namespace, whatever they did to their
  signals or sessions.
- memory and processes: a cgroup of its own (cgroup v2 `memory.max`/`pids.max`, or v1
  `memory.limit_in_bytes`/`pids.max`), which counts all of its memory (anonymous, memfd, tmpfs,
  page tables). Where no cgroup is writable, rlimits instead: address space per process, file
  size, open files, and processes per (private) uid; those do not count memfd or tmpfs pages
  beyond the file size and tmpfs caps.
- CPU time (RLIMIT_CPU), file size, open files: rlimits set by the launcher; wall time: the
  supervisor.

- CPU time and wall time over every process of the sandbox: the supervisor sums the CPU time of the
  whole process tree under bwrap (`sandbox_limits.sandbox_cpu`: its init reaps orphans, so every
  process stays in it, the reaped ones in their parents' cutime) every 50 ms and kills the whole sandbox past
  `cpu_seconds` (+0.5 s), and past `timeout` (+0.5 s) from the program's first instruction (not
  `timeout` + the 10 s start-up grace, which a program ignoring its alarm used to get). With a
  cgroup v2, the cgroup's own count (`cpu.stat` usage_usec) is taken too, whichever is larger.
  A child the kernel reaps by itself (its parent ignoring SIGCHLD, or SA_NOCLDWAIT) would add its
  CPU to no one's cutime, so the seccomp filter refuses any new SIGCHLD action (below).

The result is one JSON object the launcher writes to the sandbox's stdout after a STARTED byte; the
supervisor reads at most `_RESULT_BYTES`, parses it without converting big numbers, and checks
every field's type and size (`sandbox_result`): anything else is that program's failure. `transient` (no verdict:
callers do not keep it) comes only from the supervisor, for a sandbox whose program never started
(bwrap or the launcher failed, the cgroup could not be made); nothing the program writes can claim
it, and a program that exhausts its own memory or processes, with or without a cgroup, has failed.

Seccomp (`seccomp_filter`, bwrap's `--seccomp`): new user namespaces (`unshare`/`clone` with
CLONE_NEWUSER; `clone3` fails with ENOSYS so glibc uses `clone`) and the keyring calls are refused,
and so is `rt_sigaction(SIGCHLD, <new action>)` (reading it is allowed): no program can have its
children reaped by the kernel, out of every cutime the CPU limit sums. So neither a nested user namespace (as root bwrap's `--disable-userns` cannot apply) nor a key left
in the uid's keyring for a later owner of the same uid is possible.

No bwrap (or no namespaces) means no execution: `BenchError` says how to install it.
`--unsafe-exec` (env OVERSIGHT_BENCH_UNSAFE_EXEC=1) runs programs without isolation instead
(same launcher and rlimits, a temp folder and an empty environment, but the user's files and
network), with a warning on stderr.
"""

from __future__ import annotations

import functools
import json
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from oversight_bench.api import BenchError
from task_configs import seccomp_filter
from task_configs.sandbox_limits import CGROUP_ENV, LIMITS_ENV, NPROC, Cgroup, limits_backend, reserve_uid, sandbox_cpu
from task_configs.sandbox_result import STATUSES, SandboxResult, numeric, parse_result

#: also named here, the sandbox's public face: its settings (sandbox_limits) and its results' rules (sandbox_result)
__all__ = ["CGROUP_ENV", "INSTALL_HINT", "LIMITS_ENV", "STATUSES", "SandboxResult", "UNSAFE_ENV", "UNSAFE_EXEC_ATTRS",
           "UNSAFE_EXEC_FLAG", "limits_backend", "numeric", "require_isolation", "run_program", "run_programs",
           "unsafe_exec_option"]

UNSAFE_ENV = "OVERSIGHT_BENCH_UNSAFE_EXEC"
_WORKER = Path(__file__).with_name("sandbox_worker.py")
_RESULT_BYTES = 1 << 20
STARTED = b"#"  # the launcher's first byte on the result channel: the program starts (sandbox_worker.STARTED)
_WALL_SLACK_S = 0.5  # past the program's own timeout (its launcher's alarm fires first), the supervisor kills
_CPU_SLACK_S = 0.5  # likewise past its CPU seconds, counted over every process of the sandbox
_CPU_POLL_S = 0.05
_STARTUP_GRACE = 10.0  # seconds for bwrap + interpreter start on top of the program's own timeout
_TMPFS_BYTES = 64 * 1024 * 1024
_SHM_BYTES = 16 * 1024 * 1024
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install bubblewrap)"


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
    # bwrap's own init is the namespace's pid 1 (no --as-pid-1): the program cannot change it (another
    # uid when root), and the supervisor kills it by pidfd, which makes the kernel kill the namespace
    args = [exe, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
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
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(_SHM_BYTES), "--perms", "1777", "--tmpfs", "/dev/shm",
             "--size", str(_TMPFS_BYTES), "--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--dir", "/tmp/work"]
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
    on_result: Callable[[], None] | None = None,
) -> list[SandboxResult]:
    """Execute each program in its own sandbox; one result per program, in order.

    Up to `workers` sandboxes run at once (default: one per CPU, at most 4). `on_result` is called
    (from the worker threads) as each program finishes: a progress bar's update.
    """
    if not programs:
        return []
    require_isolation()
    job = _job(timeout=timeout, cpu_seconds=cpu_seconds, memory_mb=memory_mb, max_output=max_output)
    one = functools.partial(_run_unsafe if _unsafe() else _run_bwrap, job=job, hard=timeout + _STARTUP_GRACE)

    def run(code: str) -> SandboxResult:
        result = one(code)
        if on_result is not None:
            on_result()
        return result
    workers = max(1, min(workers or min(4, os.cpu_count() or 1), len(programs)))
    if workers == 1:
        return [run(code) for code in programs]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, programs))


def _job(*, timeout: float, cpu_seconds: int, memory_mb: int, max_output: int) -> dict:
    """The launcher's limits. Where a cgroup bounds memory and processes, no rlimit does: the cgroup's
    counters then tell the program's own exhaustion from the machine's."""
    job = {"cpu": int(cpu_seconds), "memory_mb": int(memory_mb), "timeout": float(timeout),
           "max_output": int(max_output), "file_mb": 16, "site_paths": _site_paths(), "uid": None}
    if _unsafe():
        return {**job, "nproc": None, "rlimit_memory": True}
    cgroup = limits_backend() != "rlimit"
    return {**job, "nproc": None if cgroup else NPROC, "rlimit_memory": not cgroup}


def run_program(code: str, **limits: Any) -> SandboxResult:
    """Execute one program in the sandbox."""
    return run_programs([code], **limits)[0]


def _run_bwrap(code: str, *, job: dict, hard: float) -> SandboxResult:
    uid_fd, cgroup = None, None
    try:
        if os.geteuid() == 0:
            uid, uid_fd = reserve_uid()
            job = {**job, "uid": uid}
        if limits_backend() != "rlimit":
            try:
                cgroup = Cgroup(job["memory_mb"], NPROC + 2)  # + bwrap and its init
            except OSError as exc:
                return SandboxResult("error", error=f"sandbox: cannot make its cgroup: {exc}", transient=True)
        try:
            filter_fd = seccomp_filter.memfd()  # no new user namespace, no keyring (see seccomp_filter)
        except OSError as exc:
            return SandboxResult("error", error=f"sandbox: cannot make its seccomp filter: {exc}", transient=True)
        info_r, info_w = os.pipe()  # bwrap's --info-fd: the init's pid; _supervise closes info_w
        try:
            argv = [*(cgroup.enter_argv() if cgroup else []), *_bwrap_prefix(), "--info-fd", str(info_w),
                    *(("--seccomp", str(filter_fd)) if filter_fd is not None else ()),
                    sys.executable, "-I", "-S", "-c", _worker_source()]
            return _supervise(argv, {**job, "code": code}, hard, cwd="/", env={"PATH": _ENV["PATH"]},
                              info=(info_r, info_w, *(() if filter_fd is None else (filter_fd,))), cgroup=cgroup)
        finally:
            os.close(info_r)
    finally:
        if cgroup is not None:
            cgroup.remove()
        if uid_fd is not None:  # every process of that uid is gone: its PID namespace is
            os.close(uid_fd)


def _run_unsafe(code: str, *, job: dict, hard: float) -> SandboxResult:
    root = tempfile.mkdtemp(prefix="ob-unsafe-")
    try:
        argv = [sys.executable, "-I", "-S", "-c", _worker_source()]
        return _supervise(argv, {**job, "code": code}, hard, cwd=root, env={**_ENV, "HOME": root, "TMPDIR": root})
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _init_pidfd(raw: bytes, bwrap_pid: int) -> int | None:
    """A pidfd on the sandbox's init (bwrap's "child-pid"), if it is still bwrap's child."""
    try:
        pid = json.loads(raw.decode())["child-pid"]
        if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 1:
            return None
        fd = os.pidfd_open(pid)
    except (ValueError, KeyError, TypeError, OSError, AttributeError):
        return None
    try:  # bwrap is our unreaped child, so its pid is not reused: a process whose parent it is, is its init
        stat = Path(f"/proc/{pid}/stat").read_text()
        if int(stat.rsplit(")", 1)[1].split()[1]) == bwrap_pid:
            return fd
    except (OSError, ValueError, IndexError):
        pass
    os.close(fd)
    return None


def _supervise(argv: list[str], job: dict, hard: float, *, cwd: str, env: dict,
               info: tuple[int, ...] | None = None, cgroup: Cgroup | None = None) -> SandboxResult:
    """Start one sandbox, feed it the job, read its result (bounded in bytes and time), kill all it started."""
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=env, start_new_session=True, pass_fds=info[1:] if info else ())
    except OSError as exc:
        return SandboxResult("error", error=f"sandbox: could not start: {exc}", transient=True)
    finally:
        if info:
            for fd in info[1:]:  # the sandbox's ends (the --info-fd write end, the filter): bwrap has them now
                os.close(fd)
    pidfd = None
    pending = memoryview(json.dumps(job).encode())
    out, err, info_raw, overflow, timed_out = bytearray(), bytearray(), bytearray(), False, False
    deadline = time.monotonic() + hard
    started, cpu_used, next_poll = False, 0.0, 0.0
    os.set_blocking(proc.stdin.fileno(), False)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdin, selectors.EVENT_WRITE)
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    if info:
        sel.register(info[0], selectors.EVENT_READ, info_raw)
    try:
        while sel.get_map() and not overflow:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(min(left, _CPU_POLL_S)):
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
                    if key.data is info_raw:
                        pidfd = _init_pidfd(bytes(info_raw), proc.pid)
                    continue
                key.data.extend(chunk)
                if len(out) > _RESULT_BYTES:
                    overflow = True
                del err[4096:]
                del info_raw[4096:]
            if not started and out[:1] == STARTED:  # the program's first instruction: its wall clock starts
                started = True
                deadline = min(deadline, time.monotonic() + job["timeout"] + _WALL_SLACK_S)
            if time.monotonic() >= next_poll:  # every process of the sandbox, its children and theirs
                cpu_used, next_poll = max(cpu_used, sandbox_cpu(proc.pid, cgroup)), time.monotonic() + _CPU_POLL_S
                if cpu_used > job["cpu"] + _CPU_SLACK_S:
                    timed_out = True  # killed now, not waited for
                    break
    finally:
        sel.close()
        cpu_used = max(cpu_used, sandbox_cpu(proc.pid, cgroup))  # before anything is killed: all it used
        if not (timed_out or overflow):  # output closed: let bwrap report the exit status itself
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if pidfd is not None:  # the namespace's init: when it dies, the kernel kills all left inside
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
            # bwrap may exit before its init; the init has exited once every process inside has
            select.select([pidfd], [], [], 10)
            os.close(pidfd)
        if proc.poll() is None:
            try:  # without a pidfd: the init dies with bwrap (--die-with-parent)
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        rc = proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if not f.closed:
                f.close()
    if not started:  # the program never ran: whatever failed, it was not the program (no verdict)
        said = [ln.strip() for ln in err.decode(errors="replace").splitlines() if ln.strip()]
        why = said[-1][:300] if said else ("no start within %gs" % hard if timed_out else f"exit status {rc}")
        return SandboxResult("error", error=f"sandbox: {why}", transient=True)
    raw = bytes(out[1:])  # a program that wrote on the channel too spoiled its own result: not one object
    if cpu_used > job["cpu"] + _CPU_SLACK_S:
        return SandboxResult("timeout", error=f"CPU time over {job['cpu']}s (all its processes: {cpu_used:.1f}s)")
    if cgroup is not None and cgroup.oom_killed() and not raw:
        return SandboxResult("memory", error=f"memory over {job['memory_mb']} MB (killed)")
    if timed_out:
        return SandboxResult("timeout", error=f"wall time over {job['timeout']}s")
    if overflow:
        return SandboxResult("error", error=f"result larger than {_RESULT_BYTES} bytes")
    return parse_result(raw, rc, job)
