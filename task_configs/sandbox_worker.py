"""The launcher that runs ONE model-written program (started by `sandbox.py` as `python -I -S -c <this>`).

It runs inside its own bubblewrap sandbox (see `sandbox.py`): this file is not the security
boundary, the namespaces and the read-only mounts around it are. Its jobs are the parts only the
process itself can do: read the job (code and limits) from stdin, keep the original stdout as the
result channel and point fds 0-2 at /dev/null, drop to an unprivileged uid when the sandbox was
started by root (rlimits on processes do not bind uid 0), set the rlimits, run the program, and
write one JSON object with its answer to the result channel. Where a cgroup bounds the sandbox's memory and
processes, the job asks for no rlimit on them. The program can rewrite all of this (it runs in
this interpreter), but then it can only spoil or forge its own result: every program has its own
sandbox, and the supervisor validates what comes back.

The result channel carries STARTED (one byte, written just before the program's first instruction:
the supervisor's wall clock for the program starts there, and a sandbox that never sent it failed
before the program ran), then the JSON object. Nothing in the result says whether the machine or
the program was to blame: only the supervisor decides that, from what it saw itself.
"""

import importlib
import importlib.util
import io
import json
import math
import os
import resource
import signal
import site
import sys
import types

STARTED = b"#"  # the first byte on the result channel: the program is about to run
NUMPY_MB = 160  # room for numpy on top of the program's budget (it maps ~120 MB), as when pre-imported

class _Timeout(BaseException):
    """Raised in the program by the wall-clock or CPU-time alarm (a BaseException so a bare
    `except Exception` in the program does not swallow it)."""


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


def _drop_privileges(uid):
    """From root (with only CAP_SETUID/CAP_SETGID left by bwrap) to `uid`: every capability goes."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    with open("/proc/self/status") as f:
        caps = {k: v.strip() for k, v in (ln.split(":", 1) for ln in f if ln.startswith("Cap"))}
    if os.getuid() == 0 or int(caps.get("CapEff", "1"), 16) or int(caps.get("CapPrm", "1"), 16):
        raise RuntimeError("could not drop privileges")


class _NumpyOnUse(types.ModuleType):
    """Stands for numpy until the program reads one of its attributes, then loads it.

    Nearly every zero-shot PoT program starts with `import numpy as np` and never uses it; loading
    numpy costs about 0.1 s, more than the rest of a sandboxed run. The import statement itself
    only reads `__spec__`, which this module has; anything else loads the real numpy.
    """

    def __getattr__(self, name):
        del sys.modules["numpy"]
        real = importlib.import_module("numpy")
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


def _numpy_on_use():
    spec = importlib.util.find_spec("numpy")
    if spec is None:
        return False
    module = _NumpyOnUse("numpy")
    module.__spec__ = spec
    sys.modules["numpy"] = module
    return True


def _limit(name, value):
    resource.setrlimit(getattr(resource, name), (value, value))


def main():
    job = json.loads(sys.stdin.buffer.read())
    # started with -S (site's .pth files cost ~70 ms a start): add site-packages and exit()/quit()
    sys.path.extend(job["site_paths"])
    site.setquit()
    site.setcopyright()
    site.sethelper()
    out = {"status": "ok", "answer": None, "error": "", "stdout": ""}
    code, max_out = job["code"], job["max_output"]
    if job.get("uid") is not None:
        _drop_privileges(job["uid"])
    _limit("RLIMIT_CORE", 0)
    _limit("RLIMIT_FSIZE", job["file_mb"] * 1024 * 1024)
    _limit("RLIMIT_NOFILE", 256)
    if job.get("nproc"):
        _limit("RLIMIT_NPROC", job["nproc"])
    extra_mb = NUMPY_MB if "numpy" in code and _numpy_on_use() else 0
    if job.get("rlimit_memory"):
        with open("/proc/self/statm") as f:  # the memory budget is on top of what is already mapped
            vm_now = int(f.read().split()[0]) * resource.getpagesize()
        _limit("RLIMIT_AS", vm_now + (job["memory_mb"] + extra_mb) * 1024 * 1024)
    resource.setrlimit(resource.RLIMIT_CPU, (job["cpu"], job["cpu"] + 1))

    def alarm(signum, frame):
        raise _Timeout("CPU time over %ss" % job["cpu"] if signum == signal.SIGXCPU else "wall time over %ss" % job["timeout"])

    signal.signal(signal.SIGXCPU, alarm)
    signal.signal(signal.SIGALRM, alarm)
    # from here on only the result channel leads out; stderr stays the launcher's until now
    result_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    buf = io.StringIO()
    sys.stdout = sys.stderr = buf
    os.write(result_fd, STARTED)  # the program starts now: the supervisor's clock for it too
    try:
        signal.setitimer(signal.ITIMER_REAL, job["timeout"])
        env = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(code, "<program>", "exec"), env)
        value, found = _answer(env, buf.getvalue())
        signal.setitimer(signal.ITIMER_REAL, 0)
        out["answer"] = _plain(value)
        if isinstance(out["answer"], str):
            out["answer"] = out["answer"][:1000]
        if not found:
            out["status"] = "no_answer"
    except _Timeout as exc:
        out.update(status="timeout", error=str(exc))
    except MemoryError:
        out.update(status="memory", error="MemoryError")
    except BaseException as exc:
        out.update(status="error", error=f"{type(exc).__name__}: {exc}"[:500])
    signal.setitimer(signal.ITIMER_REAL, 0)
    out["stdout"] = buf.getvalue()[:max_out]
    try:
        data = json.dumps(out).encode()
    except BaseException:
        data = json.dumps({"status": "error", "answer": None, "error": "unserializable result", "stdout": ""}).encode()
    while data:
        data = data[os.write(result_fd, data):]
    os._exit(0)


if __name__ == "__main__":  # run as `python -c <this source>`; importing it runs nothing
    main()
