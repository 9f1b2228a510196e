"""Run model-written Python programs (GSM8KQA) under OS-level isolation, to grade them.

Every program gets its own bubblewrap (`bwrap`) sandbox, so nothing a program does can reach
another program's result: a read-only view of only what Python needs (/usr, the Python install and
its site-packages, even under the host's /tmp; no home, /root, data, results or other host /tmp
files), private size-capped tmpfs /tmp (holding the program's folder /tmp/work) and /dev/shm, no
network, new PID/IPC/UTS (and, when not root, user) namespaces, a new session and an empty
environment. Started by root, the launcher `sandbox_worker.py` drops to a uid that no other process
on the machine has (one per running sandbox, reserved with a lock file), so nothing counted per uid
is shared.

Limits, per sandbox (see `limits_backend`):
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
  whole process tree under bwrap (`_tree_cpu`: its init reaps orphans, so every process stays in
  it, the reaped ones in their parents' cutime) every 50 ms and kills the whole sandbox past
  `cpu_seconds` (+0.5 s), and past `timeout` (+0.5 s) from the program's first instruction (not
  `timeout` + the 10 s start-up grace, which a program ignoring its alarm used to get). With a
  cgroup v2, the cgroup's own count (`cpu.stat` usage_usec) is taken too, whichever is larger.
  A child the kernel reaps by itself (its parent ignoring SIGCHLD, or SA_NOCLDWAIT) would add its
  CPU to no one's cutime, so the seccomp filter refuses any new SIGCHLD action (below).

The result is one JSON object the launcher writes to the sandbox's stdout after a STARTED byte; the
supervisor reads at most `_RESULT_BYTES`, parses it without converting big numbers, and checks
every field's type and size: anything else is that program's failure. `transient` (no verdict:
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

import fcntl
import functools
import itertools
import json
import math
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from oversight_bench.api import BenchError
from task_configs import seccomp_filter

UNSAFE_ENV = "OVERSIGHT_BENCH_UNSAFE_EXEC"
STATUSES = ("ok", "error", "timeout", "memory", "no_answer")
_WORKER = Path(__file__).with_name("sandbox_worker.py")
_RESULT_BYTES = 1 << 20
STARTED = b"#"  # the launcher's first byte on the result channel: the program starts (sandbox_worker.STARTED)
_WALL_SLACK_S = 0.5  # past the program's own timeout (its launcher's alarm fires first), the supervisor kills
_CPU_SLACK_S = 0.5  # likewise past its CPU seconds, counted over every process of the sandbox
_CPU_POLL_S = 0.05
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_STARTUP_GRACE = 10.0  # seconds for bwrap + interpreter start on top of the program's own timeout
_TMPFS_BYTES = 64 * 1024 * 1024
_SHM_BYTES = 16 * 1024 * 1024
_NPROC = 32
_MEMORY_BASE_MB = 64  # the cgroup's room for bwrap, the interpreter and numpy on top of the program's budget
LIMITS_ENV = "OVERSIGHT_BENCH_SANDBOX_LIMITS"  # "rlimit": skip cgroups (to test the fallback)
CGROUP_ENV = "OVERSIGHT_BENCH_CGROUP"  # a delegated cgroup v2 folder to create sandboxes' cgroups in
_CGROUP_PREFIX = "oversight-bench-"
_UID_BASE, _UID_SLOTS = 1_600_000_000, 4096  # root: one uid of this range per running sandbox
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
    #: the program never started (the sandbox, its cgroup or its filter could not be made, bwrap or
    #: the launcher failed): no verdict. Set by the supervisor only, never from the program's result
    transient: bool = False

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
    try:
        if isinstance(value, (int, float)):
            f = float(value)
        else:
            f = float(str(value).strip().replace(",", "").replace("$", "").rstrip("."))
    except (ValueError, OverflowError):
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
    return {**job, "nproc": None if cgroup else _NPROC, "rlimit_memory": not cgroup}


def run_program(code: str, **limits: Any) -> SandboxResult:
    """Execute one program in the sandbox."""
    return run_programs([code], **limits)[0]


# -- per-sandbox limits: cgroups, and a uid of its own -------------------------------------------
def limits_backend() -> str:
    """How memory and processes are bounded here: "cgroup2", "cgroup1" or "rlimit" (the fallback)."""
    if os.environ.get(LIMITS_ENV, "").strip().lower() == "rlimit":
        return "rlimit"
    return _cgroup_parents()[0]


def _mountinfo() -> list[tuple[str, str, str, set[str]]]:
    """(fs type, mount point, root inside the hierarchy, super options) of each cgroup mount."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        pre, _, post = line.partition(" - ")
        f, g = pre.split(), post.split()
        if len(f) >= 5 and len(g) >= 3 and g[0] in ("cgroup", "cgroup2"):
            found.append((g[0], f[4].replace("\\040", " "), f[3].replace("\\040", " "), set(g[2].split(","))))
    return found


def _own_cgroup_dir(fstype: str, controller: str) -> Path | None:
    """The folder of this process's own cgroup in the hierarchy of `controller` ("" for cgroup v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    path = next((ln.split(":", 2)[2] for ln in lines if ln.count(":") >= 2 and (
        ln.split(":", 2)[1] == "" and ln.startswith("0:") if not controller else controller in ln.split(":", 2)[1].split(","))), None)
    if path is None:
        return None
    for kind, mount, root, opts in _mountinfo():
        if kind == fstype and (not controller or controller in opts):
            if root == "/":
                return Path(mount + path)
            if path == root or path.startswith(root + "/"):
                return Path(mount + path[len(root):])
            return Path(mount)
    return None


def _try_cgroup(kind: str, parents: list[Path]) -> bool:
    """Whether a sandbox's cgroup can be made under `parents`, limited, and entered by a process."""
    test = [d / f"{_CGROUP_PREFIX}probe-{os.getpid()}" for d in parents]
    try:
        for d in test:
            d.mkdir(exist_ok=True)
        _write_limits(kind, test, 64 * 1024 * 1024, 8)
        subprocess.run(["/bin/sh", "-c", _enter_script(len(test)) + "true", "sh", *map(str, test)],
                       check=True, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        for d in test:
            try:
                d.rmdir()
            except OSError:
                pass


@functools.lru_cache(maxsize=1)
def _cgroup_parents() -> tuple[str, tuple[Path, ...]]:
    """Where each sandbox's cgroup goes: a writable cgroup v2 folder with memory and pids (the one in
    OVERSIGHT_BENCH_CGROUP, else this process's own), else writable v1 memory and pids hierarchies."""
    given = os.environ.get(CGROUP_ENV, "").strip()
    v2 = Path(given) if given else _own_cgroup_dir("cgroup2", "")
    if v2 is not None:
        try:
            have = set((v2 / "cgroup.controllers").read_text().split())
            enabled = set((v2 / "cgroup.subtree_control").read_text().split())
            if {"memory", "pids"} <= have and not {"memory", "pids"} <= enabled:
                (v2 / "cgroup.subtree_control").write_text("+memory +pids")
                enabled = set((v2 / "cgroup.subtree_control").read_text().split())
            if {"memory", "pids"} <= enabled and _try_cgroup("cgroup2", [v2]):
                _remove_stale([v2])
                return "cgroup2", (v2,)
        except OSError:
            pass
    v1 = [_own_cgroup_dir("cgroup", c) for c in ("memory", "pids")]
    if all(v1) and _try_cgroup("cgroup1", v1):
        _remove_stale(v1)
        return "cgroup1", tuple(v1)
    return "rlimit", ()


def _remove_stale(parents) -> None:
    """Empty cgroups left by supervisors that died (the name holds their pid)."""
    for parent in parents:
        for d in parent.glob(f"{_CGROUP_PREFIX}*-*"):
            pid = d.name[len(_CGROUP_PREFIX):].split("-")[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                try:
                    d.rmdir()
                except OSError:
                    pass


def _write_limits(kind: str, dirs: list[Path], memory: int, pids: int) -> None:
    if kind == "cgroup2":
        (dirs[0] / "memory.max").write_text(str(memory))
        for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
            if (dirs[0] / name).exists():
                (dirs[0] / name).write_text(value)
        (dirs[0] / "pids.max").write_text(str(pids))
    else:
        (dirs[0] / "memory.limit_in_bytes").write_text(str(memory))
        if (dirs[0] / "memory.memsw.limit_in_bytes").exists():  # no swapping out of the limit
            (dirs[0] / "memory.memsw.limit_in_bytes").write_text(str(memory))
        (dirs[1] / "pids.max").write_text(str(pids))


def _enter_script(n: int) -> str:
    """sh code that moves the shell into the cgroups named by its first `n` arguments, then execs the rest
    (so bwrap and everything it starts are inside from their first instruction)."""
    return "".join(f'echo $$ > "${i + 1}/cgroup.procs" && ' for i in range(n)) + (f"shift {n} && " if n else "")


def _read_counts(path: Path) -> dict[str, int]:
    try:
        pairs = (ln.split() for ln in path.read_text().splitlines())
        return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].isdigit()}
    except OSError:
        return {}


class _Cgroup:
    """One sandbox's cgroup (v2) or pair of cgroups (v1 memory, pids)."""

    _seq = itertools.count()

    def __init__(self, memory_mb: int, pids: int):
        self.kind, parents = _cgroup_parents()
        name = f"{_CGROUP_PREFIX}{os.getpid()}-{next(self._seq)}"
        self.dirs: list[Path] = []
        try:
            for parent in parents:
                (parent / name).mkdir()
                self.dirs.append(parent / name)
            _write_limits(self.kind, self.dirs, (memory_mb + _MEMORY_BASE_MB) * 1024 * 1024, pids)
        except OSError:
            self.remove()
            raise

    def enter_argv(self) -> list[str]:
        return ["/bin/sh", "-c", _enter_script(len(self.dirs)) + 'exec "$@"', "sh", *map(str, self.dirs)]

    def oom_killed(self) -> bool:
        name = "memory.events" if self.kind == "cgroup2" else "memory.oom_control"
        return _read_counts(self.dirs[0] / name).get("oom_kill", 0) > 0 if self.dirs else False

    def cpu_seconds(self) -> float:
        """CPU seconds used by every process ever in the cgroup (v2 `cpu.stat` usage_usec, kept by the
        kernel whoever reaps them); 0.0 where there is no such count (cgroup v1 here has no cpuacct)."""
        if self.kind != "cgroup2" or not self.dirs:
            return 0.0
        return _read_counts(self.dirs[0] / "cpu.stat").get("usage_usec", 0) / 1e6

    def remove(self) -> None:
        """Kill whatever is still inside, then remove the cgroups."""
        for d in self.dirs:
            if (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
        deadline = time.monotonic() + 5
        for d in self.dirs:
            while True:
                try:
                    for pid in (d / "cgroup.procs").read_text().split():
                        os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


_uid_dir_lock = threading.Lock()


def _reserve_uid() -> tuple[int, int]:
    """(uid, fd): a uid that no other sandbox on the machine uses while `fd`, a lock on it, is open."""
    base = Path("/run") if os.access("/run", os.W_OK) else Path(tempfile.gettempdir())
    folder = base / "oversight-bench-uids"
    with _uid_dir_lock:
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            st = folder.lstat()
        except OSError as exc:
            raise BenchError(f"cannot keep the sandboxes' uid locks in {folder}: {exc}") from None
        if not os.path.isdir(folder) or os.path.islink(folder) or st.st_uid != 0 or st.st_mode & 0o077:
            raise BenchError(f"{folder} must be a folder of root's that only root can use (it holds the "
                             "sandboxes' uid locks)")
    start = int.from_bytes(os.urandom(2), "little") % _UID_SLOTS
    for i in range(_UID_SLOTS):
        uid = _UID_BASE + (start + i) % _UID_SLOTS
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return uid, fd
        except OSError:
            os.close(fd)
    raise BenchError(f"all {_UID_SLOTS} sandbox uids are in use")


def _run_bwrap(code: str, *, job: dict, hard: float) -> SandboxResult:
    uid_fd, cgroup = None, None
    try:
        if os.geteuid() == 0:
            uid, uid_fd = _reserve_uid()
            job = {**job, "uid": uid}
        if limits_backend() != "rlimit":
            try:
                cgroup = _Cgroup(job["memory_mb"], _NPROC + 2)  # + bwrap and its init
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


def _sandbox_cpu(root: int, cgroup: _Cgroup | None) -> float:
    """The larger of the process tree's sum and the cgroup's own CPU accounting (cgroup v2)."""
    return max(_tree_cpu(root), cgroup.cpu_seconds() if cgroup is not None else 0.0)


def _tree_cpu(root: int) -> float:
    """CPU seconds used so far by `root` and every process below it (a sandbox's: its init reaps
    orphans, so none leaves the tree), those already reaped included (their parents' cutime/cstime).
    Read from /proc, so it counts the same with or without a cgroup: the tree is walked through each
    task's `children` list (a few files, not all of /proc), else found by one scan of /proc."""
    if not os.path.exists(f"/proc/{root}/task/{root}/children"):
        return _scan_tree_cpu(root)
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _stat_ticks(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    stack.extend(int(c) for c in f.read().split())
            except (OSError, ValueError):
                pass
    return total / _CLK_TCK


def _stat_ticks(pid: int) -> int:
    """utime + stime + cutime + cstime of `pid`, in clock ticks (0: gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return sum(int(x) for x in f.read().rsplit(b")", 1)[1].split()[11:15])
    except (OSError, IndexError, ValueError):
        return 0


def _scan_tree_cpu(root: int) -> float:
    children: dict[int, list[int]] = {}
    try:
        names = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return 0.0
    for name in names:
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                children.setdefault(int(f.read().rsplit(b")", 1)[1].split()[1]), []).append(int(name))
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _stat_ticks(pid)
        stack.extend(children.get(pid, ()))
    return total / _CLK_TCK


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
               info: tuple[int, ...] | None = None, cgroup: _Cgroup | None = None) -> SandboxResult:
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
                cpu_used, next_poll = max(cpu_used, _sandbox_cpu(proc.pid, cgroup)), time.monotonic() + _CPU_POLL_S
                if cpu_used > job["cpu"] + _CPU_SLACK_S:
                    timed_out = True  # killed now, not waited for
                    break
    finally:
        sel.close()
        cpu_used = max(cpu_used, _sandbox_cpu(proc.pid, cgroup))  # before anything is killed: all it used
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
    return _parse(raw, rc, job)


_FIELDS = {"status", "answer", "error", "stdout"}


def _no_constant(name: str):
    raise ValueError(name)


def _parse(raw: bytes, rc: int, job: dict) -> SandboxResult:
    """Check the launcher's JSON (all that followed STARTED): exactly its fields, each
    of the expected type and size; numbers are read as floats (never as unbounded ints), and anything
    else is the program's own failure. Nothing in it can make the result `transient` (a program can
    write its own result): only the supervisor marks that, for a sandbox whose program never ran."""
    malformed = SandboxResult("error", error="malformed result")
    if not raw:  # the program ran and died without a result: its own doing
        if rc in (128 + 24, 128 + 9, -24, -9):  # SIGXCPU / SIGKILL at the hard CPU limit
            return SandboxResult("timeout", error=f"CPU time over {job['cpu']}s")
        return SandboxResult("error", error=f"program ended without a result (exit status {rc})")
    try:
        d = json.loads(raw.decode("utf-8"), parse_int=float, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError, OverflowError, MemoryError):
        return malformed
    if not isinstance(d, dict) or set(d) != _FIELDS:
        return malformed
    status, answer, error, stdout = (d[k] for k in ("status", "answer", "error", "stdout"))
    valid = (isinstance(status, str) and status in STATUSES and isinstance(error, str) and len(error) <= 500
             and isinstance(stdout, str) and len(stdout) <= job["max_output"]
             and (answer is None or isinstance(answer, bool) or (isinstance(answer, float) and math.isfinite(answer))
                  or (isinstance(answer, str) and len(answer) <= 1000)))
    if not valid:
        return malformed
    return SandboxResult(status, answer, stdout, error)
