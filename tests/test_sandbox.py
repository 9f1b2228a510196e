"""The sandbox that grades model-written programs: honest programs are graded as before, and every
escape a program tries fails (nothing on the host changes, nothing leaks in, nothing outlives it,
and no program can touch another program's result)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from task_configs import sandbox
from oversight_bench.errors import BenchError
from task_configs.sandbox import numeric, run_program, run_programs
from task_configs.loaders.gsm8kqa import classify, clean_program, gold_answer

from sandbox_watch import SandboxWatch

FAST = dict(timeout=2.0, cpu_seconds=1, memory_mb=128)
REPO = Path(__file__).resolve().parents[1]
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (apt-get install bubblewrap; .ci/setup installs it)")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch):
    monkeypatch.setenv(sandbox.UNSAFE_ENV, "")  # recorded, so a flag set inside a test is undone after it
    monkeypatch.delenv(sandbox.UNSAFE_ENV)


@pytest.fixture()
def sandbox_end(monkeypatch) -> SandboxWatch:
    """`sandbox_end.wait_ended()`: returns once every process of the sandboxes run so far is gone."""
    return SandboxWatch(monkeypatch)


def _marker() -> str:
    return f"ob-escape-{uuid.uuid4().hex[:12]}"


def _survivors(marker: str) -> list[str]:
    """Processes anywhere on the host whose command line or environment mentions `marker`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for part in ("cmdline", "environ"):
            try:
                if marker.encode() in Path(f"/proc/{pid}/{part}").read_bytes():
                    found.append(pid)
            except OSError:
                pass
    return found


# -- honest programs ---------------------------------------------------------------------------
@needs_bwrap
def test_correct_and_wrong_programs_are_told_apart():
    right, wrong = run_programs(["eggs = 16 - 3 - 4\nans = eggs * 2", "def solution():\n    return 16 - 3 * 2"], **FAST)
    assert right.ok and right.matches(18.0) and classify(right, 18.0) == "correct"
    assert wrong.ok and not wrong.matches(18.0) and classify(wrong, 18.0) == "incorrect"


@needs_bwrap
def test_answer_conventions():
    res = run_programs(["import numpy as np\nans = np.float64(2.5)", "def solver():\n    return 7\nans = solver()",
                        "print('total', 3)\nprint(41 + 1)", "x = 1", "import math, fractions\nans = math.sqrt(16)"], **FAST)
    assert [r.answer for r in res[:3]] == [2.5, 7.0, "42"] and res[2].stdout == "total 3\n42\n"
    assert res[3].status == "no_answer" and classify(res[3], 1.0) == "failed"
    assert res[4].answer == 4.0


@needs_bwrap
def test_errors_are_results_not_exceptions():
    res = run_programs(["ans = 1/0", "def broken(:\n  pass", "raise SystemExit(3)", "ans = 5", "import os\nos._exit(3)"],
                       **FAST)
    assert [r.status for r in res] == ["error", "error", "error", "ok", "error"]
    assert res[4].error == "program ended without a result (exit status 3)"


@needs_bwrap
def test_writes_inside_its_own_tmpfs_are_allowed_and_vanish():
    res = run_programs(["with open('notes.txt', 'w') as f:\n    f.write('21')\nans = int(open('notes.txt').read()) * 2",
                        "import os\nans = len(os.listdir('.'))"], **FAST)
    assert res[0].ok and res[0].answer == 42.0
    assert res[1].ok and res[1].answer == 0.0  # the next program starts with an empty folder


@needs_bwrap
def test_large_batches_keep_order():
    res = run_programs([f"ans = {i}" for i in range(40)], workers=2, **FAST)
    assert [r.answer for r in res] == [float(i) for i in range(40)]


def test_helpers():
    assert numeric("$1,200.") == 1200.0 and numeric("abc") is None and numeric(True) is None
    assert gold_answer("6 * 3 = <<6*3=18>>18\n#### 18") == 18.0
    assert clean_program("\n# Question: what?\n# Answer this question by implementing a solver() function.\nans = 1\n") == "ans = 1"


# -- escapes: each must fail -------------------------------------------------------------------
@needs_bwrap
def test_escape_switching_off_the_old_audit_hook_changes_nothing(tmp_path):
    target = tmp_path / "escape.txt"
    code = (f"import sys\nsys.modules['__main__'].BLOCKED_PREFIXES = ('x',)\n"
            f"open({str(target)!r}, 'w').write('x')\nans = 1")
    res = run_program(code, **FAST)
    assert not target.exists() and res.status == "error"


@needs_bwrap
def test_escape_ctypes_libc_system_and_fork(tmp_path):
    target, marker = tmp_path / "ctypes.txt", _marker()
    code = ("import ctypes, time\nlibc = ctypes.CDLL(None)\n"
            f"libc.system(b'echo pwned > {target}')\n"
            "pid = libc.fork()\nif pid == 0:\n    libc.setsid()\n"
            f"    libc.execl(b'/bin/sh', b'sh', b'-c', b'sleep 1000; :', {marker.encode()!r}, None)\n"
            "time.sleep(0.3)\nans = pid")
    res = run_program(code, **FAST)
    assert res.ok and not target.exists()
    assert res.answer > 0  # the fork worked inside...
    assert not _survivors(marker)  # ...and nothing of it is left


@needs_bwrap
def test_escape_fork_setsid_child_does_not_outlive_the_program(tmp_path):
    marker = _marker()
    code = ("import os, time\n"
            "if os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        os.execv('/bin/sh', ['sh', '-c', 'sleep 1000; :', {marker!r}])\n"
            "    os._exit(0)\n"
            "time.sleep(0.5)\n"
            f"ans = int(any({marker!r}.encode() in open(f'/proc/{{p}}/cmdline', 'rb').read() "
            "for p in os.listdir('/proc') if p.isdigit()))")
    res = run_program(code, **FAST)
    assert res.ok and res.answer == 1.0  # the grandchild was running while the program ran
    assert not _survivors(marker)


@needs_bwrap
@pytest.mark.parametrize("how", [
    "import subprocess\nsubprocess.run(['sh', '-c', 'echo x > {t}'])\nans = 1",
    "import os\nos.system('echo x > {t}')\nans = 1",
    "import os\nos.execv('/bin/sh', ['sh', '-c', 'echo x > {t}'])",
    "import os\nos.posix_spawn('/bin/sh', ['sh', '-c', 'echo x > {t}'], {{}})\nans = 1",
])
def test_escape_subprocesses_cannot_write_to_the_host(tmp_path, how, sandbox_end):
    target = tmp_path / "sub.txt"
    res = run_program(how.format(t=target), **FAST)
    sandbox_end.wait_ended()  # nothing of it left that could still write
    assert not target.exists() and res.status in ("ok", "error")


@needs_bwrap
def test_escape_writing_outside_the_work_folder(tmp_path):
    names = {p: Path(p) for p in (f"/tmp/{_marker()}", f"{Path.home()}/{_marker()}", f"{REPO}/{_marker()}",
                                  str(tmp_path / "w.txt"))}
    code = "import os\nok = []\n"
    for p in names:
        code += f"try:\n    open({p!r}, 'w').write('x')\n    ok.append({p!r})\nexcept OSError:\n    pass\n"
    code += "ans = len(ok)"
    res = run_program(code, **FAST)
    assert res.ok
    # /tmp/... may succeed inside the private tmpfs: what matters is that the host never sees it
    assert not any(p.exists() for p in names.values())


@needs_bwrap
def test_escape_sqlite_and_fifo_outside(tmp_path):
    db, fifo = tmp_path / "x.sqlite", tmp_path / "x.fifo"
    res = run_programs([f"import sqlite3\nc = sqlite3.connect({str(db)!r})\nc.execute('create table t(x)')\nc.commit()\nans = 1",
                        f"import os\nos.mkfifo({str(fifo)!r})\nans = 1",
                        f"import os\nos.mkfifo('/tmp/{_marker()}')\nans = 1"], **FAST)
    assert res[0].status == "error" and res[1].status == "error" and not db.exists() and not fifo.exists()


@needs_bwrap
def test_escape_reading_the_parents_environment(monkeypatch):
    secret = f"sk-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code = ("import os\nseen = [repr(dict(os.environ))]\n"
            f"for p in ('/proc/1/environ', '/proc/self/environ', '/proc/{os.getpid()}/environ', "
            f"'/proc/{os.getppid()}/environ', '/proc/2/environ'):\n"
            "    try:\n        seen.append(open(p, 'rb').read().decode(errors='replace'))\n"
            "    except OSError as e:\n        seen.append(str(e))\n"
            "ans = ' | '.join(seen)[:1000]\nprint(ans)")
    res = run_program(code, **FAST)
    assert res.ok and "PATH" in res.answer
    assert secret not in res.answer + res.stdout and "OPENAI" not in res.answer + res.stdout
    keys = run_program("import os\nans = ' '.join(sorted(os.environ))", **FAST).answer
    assert set(keys.split()) <= {"PATH", "LANG", "HOME", "TMPDIR", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                 "MKL_NUM_THREADS", "PWD", "LC_CTYPE"}


@needs_bwrap
def test_escape_network_to_a_listening_host_socket():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    abstract = socket.socket(socket.AF_UNIX)
    name = "\0" + _marker()
    abstract.bind(name)
    abstract.listen(5)
    abstract.settimeout(0.5)
    try:
        res = run_programs([f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
                            "s.sendall(b'hi')\nans = 1",
                            f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({name!r})\nans = 1",
                            "import socket\nans = socket.gethostbyname('example.com')"], **FAST)
        assert [r.status for r in res] == ["error", "error", "error"]
        for srv in (server, abstract):
            with pytest.raises(socket.timeout):
                srv.accept()
    finally:
        server.close()
        abstract.close()


@needs_bwrap
def test_escape_forging_the_result_channel_only_spoils_the_forger():
    forge_ok = ("import os, json\nfor fd in range(3, 64):\n    try:\n        os.write(fd, json.dumps({'status': 'ok', "
                "'answer': 999.0, 'error': '', 'stdout': ''}).encode() + b'\\n' * 3)\n    except OSError:\n        pass\n"
                "ans = 1")
    junk = "import os\nfor fd in range(0, 64):\n    try:\n        os.write(fd, b'\\x00garbage{' * 1000)\n    except OSError:\n        pass\nans = 1"
    flood = "import os\nfd = 3\nwhile True:\n    os.write(fd, b'x' * 65536)"
    proc_fd = "for fd in range(0, 8):\n    try:\n        open(f'/proc/1/fd/{fd}', 'wb').write(b'junk')\n    except OSError:\n        pass\nans = 7"
    honest = ["ans = 18", "def solution():\n    return 20"]
    res = run_programs([forge_ok, honest[0], junk, honest[1], flood, proc_fd, honest[0]], **FAST)
    assert res[1].ok and res[1].answer == 18.0 and res[3].ok and res[3].answer == 20.0 and res[6].answer == 18.0
    assert res[2].status == "error" and res[4].status in ("error", "timeout")
    assert res[0].status == "error"  # its forged object + the real one is not one JSON object


@needs_bwrap
def test_escape_threads_die_with_the_program(tmp_path, sandbox_end):
    marker, target = _marker(), tmp_path / "thread.txt"
    code = ("import threading, time, os, subprocess\n"
            "def later():\n"
            f"    subprocess.Popen(['sh', '-c', 'sleep 1000; :', {marker!r}], start_new_session=True)\n"
            "    time.sleep(1.0)\n"
            f"    open({str(target)!r}, 'w').write('x')\n"
            "threading.Thread(target=later, daemon=False).start()\ntime.sleep(0.5)\n"
            f"ans = int(any({marker!r}.encode() in open(f'/proc/{{p}}/cmdline', 'rb').read() "
            "for p in os.listdir('/proc') if p.isdigit()))")
    res = run_program(code, **FAST)
    sandbox_end.wait_ended()  # the thread that would write a second after its start is gone
    assert res.ok and res.answer == 1.0 and not target.exists() and not _survivors(marker)


@needs_bwrap
def test_escape_signals_reach_nothing_outside():
    # a process of the sandbox's own uid outside it: kill -9 -1 from inside must not reach it
    uid = 65534 if os.geteuid() == 0 else os.getuid()
    kw = {"user": uid, "group": uid, "extra_groups": []} if os.geteuid() == 0 else {}
    # first make sure the program really is in its own PID namespace (else kill -1 below would be reckless)
    assert run_program("import os\nans = os.getpid()", **FAST).answer <= 5
    victim = subprocess.Popen(["sleep", "60"], **kw)
    try:
        res = run_programs([f"import os, signal\nos.kill({os.getpid()}, signal.SIGKILL)\nans = 1",
                            f"import os, signal\nos.kill({victim.pid}, signal.SIGKILL)\nans = 1",
                            "import os, signal\nos.kill(-1, signal.SIGKILL)\nans = 1"], **FAST)
        assert [r.status for r in res[:2]] == ["error", "error"]  # no such process in its PID namespace
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


@needs_bwrap
def test_escape_fork_bomb_is_bounded():
    marker = _marker()
    code = ("import os, time\nn = 0\n"
            "while True:\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n"
            f"    if pid == 0:\n        os.execv('/bin/sh', ['sh', '-c', 'sleep 1000; :', {marker!r}])\n"
            "    n += 1\nans = n")
    res = run_program(code, timeout=5.0, cpu_seconds=2, memory_mb=128)
    assert res.ok and 0 < res.answer <= 32
    assert not _survivors(marker)


@needs_bwrap
def test_escape_memory_bomb():
    res = run_programs(["blob = bytearray(1024 ** 3)\nans = 1",
                        "x = []\nwhile True:\n    x.append(' ' * 10 ** 6)"], timeout=10.0, cpu_seconds=5, memory_mb=128)
    assert [r.status for r in res] == ["memory", "memory"]


@needs_bwrap
def test_escape_cpu_loop_and_ignored_alarms(monkeypatch):
    monkeypatch.setattr(sandbox, "_STARTUP_GRACE", 2.0)
    res = run_programs(["while True:\n    pass",
                        "import signal\nfor s in (signal.SIGXCPU, signal.SIGALRM):\n    signal.signal(s, signal.SIG_IGN)\n"
                        "while True:\n    pass",
                        "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(60)\nans = 1",
                        "import time\ntime.sleep(30)\nans = 1"], **FAST)
    assert [r.status for r in res] == ["timeout"] * 4


@needs_bwrap
def test_escape_huge_file_and_full_tmpfs():
    res = run_programs(["open('big', 'wb').write(b'x' * (100 * 1024 * 1024))\nans = 1",
                        "for i in range(20):\n    open(f'f{i}', 'wb').write(b'x' * (10 * 1024 * 1024))\nans = 1"],
                       timeout=5.0, cpu_seconds=3, memory_mb=256)
    assert res[0].status in ("error", "memory") and res[1].status == "error"
    assert "File too large" in res[1].error or "No space left" in res[1].error


@needs_bwrap
def test_escape_reading_files_outside():
    secrets = ["/root", str(Path.home()), str(REPO), str(REPO / "README.md"), "/work", "/etc/shadow", "/etc/passwd",
               os.environ.get("OVERSIGHT_BENCH_DATA", "/work/shared/datasets"), "/var", "/run", "/sys/kernel"]
    code = "import os\nok = []\n"
    for p in secrets:
        code += (f"try:\n    ok.append(({p!r}, sorted(os.listdir({p!r}))[:3] if os.path.isdir({p!r}) "
                 f"else open({p!r}).read(20)))\nexcept OSError:\n    pass\n")
    code += "ans = repr(ok)"
    res = run_program(code, **FAST)
    assert res.ok
    seen = eval(res.answer)  # a repr of (path, listing or text) pairs made from str literals
    # a folder above the Python install (e.g. /root for ~/.pyenv) exists only as a mount point
    python = sandbox._python_paths()
    for path, content in seen:
        assert isinstance(content, list), (path, content)
        assert all(any(p.startswith(f"{path}/{name}") for p in python) for name in content), (path, content)


# -- no sandbox: refuse, unless --unsafe-exec ---------------------------------------------------
def _fresh_caches():
    sandbox._bwrap_prefix.cache_clear()
    sandbox._probe_bwrap.cache_clear()
    sandbox._warn_unsafe.cache_clear()


def test_missing_bwrap_is_refused_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    _fresh_caches()
    try:
        with pytest.raises(BenchError) as exc:
            run_program("ans = 1", **FAST)
    finally:
        _fresh_caches()
    msg = str(exc.value)
    assert "\n" not in msg and "apt-get install bubblewrap" in msg and "--unsafe-exec" in msg


def test_bwrap_that_cannot_create_namespaces_is_refused(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    _fresh_caches()
    try:
        with pytest.raises(BenchError) as exc:
            run_program("ans = 1", **FAST)
    finally:
        _fresh_caches()
    msg = str(exc.value)
    assert "\n" not in msg and "No permissions to creating new namespace" in msg and "user namespaces" in msg
    assert "--unsafe-exec" in msg


@needs_bwrap
def test_a_sandbox_that_cannot_run_python_is_refused(monkeypatch):
    monkeypatch.setattr(sandbox, "_python_paths", lambda: [])
    monkeypatch.setattr(sandbox, "_site_paths", lambda: [])
    _fresh_caches()
    try:
        if sys.base_prefix.startswith("/usr"):
            pytest.skip("this Python lives under /usr, which the sandbox always shows")
        with pytest.raises(BenchError) as exc:
            run_program("ans = 1", **FAST)
    finally:
        _fresh_caches()
    assert "\n" not in str(exc.value) and "cannot run this Python" in str(exc.value)


def test_unsafe_exec_runs_without_bwrap_and_warns(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv(sandbox.UNSAFE_ENV, "1")
    _fresh_caches()
    try:
        res = run_programs(["ans = 6 * 7", "import os\nans = len([k for k in os.environ if 'KEY' in k])"], **FAST)
    finally:
        _fresh_caches()
    assert [r.answer for r in res] == [42.0, 0.0]
    err = capsys.readouterr().err
    assert "warning: --unsafe-exec" in err and "WITHOUT isolation" in err


def test_unsafe_exec_flag_on_the_commands_that_execute_programs(monkeypatch, tmp_path):
    """build-task without bwrap: refused in one line (exit 2) before any model call; with
    --unsafe-exec it builds, warning on stderr. `run` takes the same flag."""
    import json

    from click.testing import CliRunner

    from model_adapters.scripted import register_script
    from oversight_bench.cli import cli

    calls = []

    def programs(messages, n, seed):
        calls.append(n)
        return [f"```python\ndef solution():\n    return {18 + (i % 2)}\n```" for i in range(n)]

    register_script("sandbox_programs", programs)
    data = tmp_path / "data" / "gsm8k"
    data.mkdir(parents=True)
    (data / "test.jsonl").write_text(json.dumps({"question": "3 pens of 6 sheep?", "answer": "#### 18"}) + "\n")
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    args = ["build-task", "gsm8kqa", "--model", "scripted:sandbox_programs", "--k", "2",
            "--data-dir", str(tmp_path / "data"), "--output", str(tmp_path / "built.jsonl")]
    _fresh_caches()
    try:
        refused = CliRunner().invoke(cli, args)
        assert refused.exit_code == 2 and "apt-get install bubblewrap" in refused.output and not calls
        assert len(refused.output.strip().splitlines()) == 1
        built = CliRunner().invoke(cli, [*args, "--unsafe-exec"])
    finally:
        _fresh_caches()
    assert built.exit_code == 0, built.output
    assert "warning: --unsafe-exec" in built.output and "built 1 program pairs" in built.output
    assert "--unsafe-exec" in CliRunner().invoke(cli, ["run", "--help"]).output


def test_private_tmp_is_mounted_before_python_so_a_venv_under_tmp_stays_visible():
    """bwrap mounts in order: a tmpfs on /tmp after the venv's bind would hide a venv under /tmp
    (a clone in /tmp failed every sandbox test that way)."""
    from task_configs import sandbox

    sandbox._bwrap_prefix.cache_clear()
    args = list(sandbox._bwrap_prefix())
    if not args:
        pytest.skip("bubblewrap not installed")
    binds = [i for i, a in enumerate(args[:-2]) if a == "--ro-bind" and args[i + 1] in sandbox._python_paths()]
    assert binds and args.index("--tmpfs") < min(binds)
    assert args[args.index("--chdir") + 1] == "/tmp/work"


def test_python_under_the_private_folder_is_refused(monkeypatch):
    """A Python install at /tmp or under /tmp/work would be hidden by (or hide) the program's own
    folder: a one-line error, never a sandbox that silently runs something else."""
    from task_configs import sandbox

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    for bad in ("/tmp", "/tmp/work/venv"):
        monkeypatch.setattr(sandbox, "_python_paths", lambda bad=bad: (bad,))
        sandbox._bwrap_prefix.cache_clear()
        with pytest.raises(BenchError, match="/tmp/work"):
            sandbox._bwrap_prefix()
    sandbox._bwrap_prefix.cache_clear()
