"""How each sandbox is bounded beyond bwrap's namespaces: a cgroup of its own for memory and
processes (v2, else v1, else rlimits: `limits_backend`), a uid of its own when started by root
(`reserve_uid`), and the CPU time of its whole process tree (`sandbox_cpu`). Every read and write of
/proc and the cgroup file system for the sandbox is here; `sandbox` starts and supervises it."""

from __future__ import annotations

import fcntl
import functools
import itertools
import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from oversight_bench.api import BenchError

LIMITS_ENV = "OVERSIGHT_BENCH_SANDBOX_LIMITS"  # "rlimit": skip cgroups (to test the fallback)
CGROUP_ENV = "OVERSIGHT_BENCH_CGROUP"  # a delegated cgroup v2 folder to create sandboxes' cgroups in
NPROC = 32  # processes per sandbox (its cgroup's pids.max, or RLIMIT_NPROC of its private uid)
_MEMORY_BASE_MB = 64  # the cgroup's room for bwrap, the interpreter and numpy on top of the program's budget
_CGROUP_PREFIX = "oversight-bench-"
_UID_BASE, _UID_SLOTS = 1_600_000_000, 4096  # root: one uid of this range per running sandbox
_CLK_TCK = os.sysconf("SC_CLK_TCK")


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


class Cgroup:
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


def reserve_uid() -> tuple[int, int]:
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


def sandbox_cpu(root: int, cgroup: Cgroup | None) -> float:
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
