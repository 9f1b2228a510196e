"""Runs inside the sandbox process (started by `sandbox.py` with `python -I -c <this source>`).

Reads one JSON job from stdin, forks one child per program (so a crash, a loop or a memory blow-up
costs one program, and the interpreter with numpy already imported is reused), and writes one JSON
line per program to stdout. Each child gets CPU-time and address-space limits, a private working
directory, /dev/null as its real stdio, and an audit hook that refuses sockets, subprocesses,
native-code loading and any write outside its directory. The hook guards against accidents in
model-written code, not a determined attacker; the network namespace (when `unshare` works) and the
rlimits are the harder walls.
"""

import io
import json
import math  # noqa: F401  (pre-imported for the programs)
import os
import resource
import select
import signal
import sys
import tempfile
import time

try:
    import numpy  # noqa: F401  (PoT programs import it; importing once here keeps forks cheap)
except Exception:
    pass

BLOCKED_PREFIXES = (
    "socket.", "subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty",
    "ctypes.", "_posixsubprocess", "os.system", "os.kill", "os.killpg", "pty.", "shutil.",
)
PATH_EVENTS = {
    "os.remove": 1, "os.rename": 2, "os.mkdir": 1, "os.rmdir": 1, "os.chmod": 1, "os.chown": 1,
    "os.symlink": 2, "os.link": 2, "os.truncate": 1, "os.utime": 1, "os.chdir": 1, "os.chflags": 1,
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _inside(path, root):
    if isinstance(path, int):
        return False
    if isinstance(path, bytes):
        path = path.decode(errors="replace")
    full = os.path.realpath(os.path.join(root, os.fspath(path)))
    return full == root or full.startswith(root + os.sep)


def _install_hook(root):
    def hook(event, args):
        if event.startswith(BLOCKED_PREFIXES):
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & WRITE_FLAGS
            )
            if writing and not _inside(path, root):
                raise PermissionError(f"sandbox: writing {path!r} outside the working directory is not allowed")
        elif event in PATH_EVENTS:
            for p in args[: PATH_EVENTS[event]]:
                if p is not None and not _inside(p, root):
                    raise PermissionError(f"sandbox: {event} on {p!r} outside the working directory is not allowed")

    sys.addaudithook(hook)


def _plain(value):
    """A JSON-safe form of the program's answer (numpy scalars become floats)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    try:
        f = float(value)
        if math.isfinite(f):
            return f
        return str(f)
    except Exception:
        return repr(value)[:200]


def _answer(env, stdout):
    for name in ("ans", "answer", "result"):
        if name in env and not callable(env[name]):
            return env[name], True
    for name in ("solution", "solver", "solve", "main"):
        fn = env.get(name)
        if callable(fn):
            return fn(), True
    lines = [ln for ln in stdout.strip().splitlines() if ln.strip()]
    if lines:
        return lines[-1].strip(), True
    return None, False


def _child(code, root, cpu, mem_mb, max_out, wfd):
    os.chdir(root)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.environ["TMPDIR"] = root
    tempfile.tempdir = root
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:  # the budget is on top of what the interpreter (with numpy) already maps
        with open("/proc/self/statm") as f:
            vm_now = int(f.read().split()[0]) * resource.getpagesize()
    except OSError:
        vm_now = 1024 * 1024 * 1024
    limit = vm_now + mem_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    buf = io.StringIO()
    sys.stdout = sys.stderr = buf
    out = {"status": "ok", "answer": None, "error": ""}
    try:
        _install_hook(root)
        env = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(code, "<program>", "exec"), env)
        value, found = _answer(env, buf.getvalue())
        out["answer"] = _plain(value)
        if not found:
            out["status"] = "no_answer"
    except MemoryError:
        out = {"status": "memory", "answer": None, "error": "MemoryError"}
    except PermissionError as exc:
        status = "forbidden" if str(exc).startswith("sandbox:") else "error"
        out = {"status": status, "answer": None, "error": str(exc)[:500]}
    except BaseException as exc:
        out = {"status": "error", "answer": None, "error": f"{type(exc).__name__}: {exc}"[:500]}
    out["stdout"] = buf.getvalue()[:max_out]
    data = json.dumps(out).encode()
    os.write(wfd, data)
    os._exit(0)


def _run_one(code, root, cpu, mem_mb, timeout, max_out):
    os.makedirs(root, exist_ok=True)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _child(code, root, cpu, mem_mb, max_out, w)
        finally:
            os._exit(1)
    os.close(w)
    chunks, deadline, timed_out = [], time.monotonic() + timeout, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    if timed_out:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return {"status": "timeout", "answer": None, "error": f"wall time over {timeout}s", "stdout": ""}
    if chunks:
        return json.loads(b"".join(chunks))
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return {"status": "timeout", "answer": None, "error": f"CPU time over {cpu}s", "stdout": ""}
    return {"status": "error", "answer": None, "error": f"program died (status {status})", "stdout": ""}


def main():
    # no core dumps, no huge files, even inside the working directory
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024 * 1024, 64 * 1024 * 1024))
    job = json.loads(sys.stdin.read())
    base = os.path.realpath(job["root"])
    for i, code in enumerate(job["programs"]):
        res = _run_one(code, os.path.join(base, str(i)), job["cpu"], job["memory_mb"], job["timeout"], job["max_output"])
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


main()
