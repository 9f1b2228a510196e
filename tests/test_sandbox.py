"""The sandbox that grades model-written programs: limits hold and breaking a rule is a failure."""

from __future__ import annotations

import glob
import os
import tempfile

import pytest

from oversight_bench.sandbox import numeric, run_program, run_programs
from task_configs.loaders.gsm8kqa import classify, clean_program, gold_answer

FAST = dict(timeout=2.0, cpu_seconds=1, memory_mb=128)


def test_correct_and_wrong_programs_are_told_apart():
    right, wrong = run_programs(["eggs = 16 - 3 - 4\nans = eggs * 2", "def solution():\n    return 16 - 3 * 2"], **FAST)
    assert right.ok and right.matches(18.0) and classify(right, 18.0) == "correct"
    assert wrong.ok and not wrong.matches(18.0) and classify(wrong, 18.0) == "incorrect"


def test_answer_conventions():
    res = run_programs(["import numpy as np\nans = np.float64(2.5)", "def solver():\n    return 7\nans = solver()",
                        "print('total', 3)\nprint(41 + 1)", "x = 1"], **FAST)
    assert [r.answer for r in res[:3]] == [2.5, 7.0, "42"]
    assert res[3].status == "no_answer" and classify(res[3], 1.0) == "failed"


def test_infinite_loop_is_stopped():
    res = run_program("while True:\n    pass", **FAST)
    assert res.status == "timeout" and classify(res, 1.0) == "failed"


def test_sleeping_program_hits_wall_clock():
    res = run_program("import time\ntime.sleep(30)\nans = 1", timeout=1.0, cpu_seconds=5, memory_mb=128)
    assert res.status == "timeout"


def test_memory_limit():
    res = run_program("blob = bytearray(1024 ** 3)\nans = 1", **FAST)
    assert res.status == "memory" and not res.ok


def test_socket_is_refused():
    res = run_program("import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 9))\nans = 1", **FAST)
    assert res.status == "forbidden" and "socket" in res.error


def test_write_outside_temp_dir_is_refused(tmp_path):
    target = tmp_path / "escape.txt"
    res = run_program(f"open({str(target)!r}, 'w').write('x')\nans = 1", **FAST)
    assert res.status == "forbidden" and not target.exists()
    res = run_program(f"import os\nos.remove({str(tmp_path)!r})\nans = 1", **FAST)
    assert res.status == "forbidden" and tmp_path.exists()


def test_writes_inside_its_own_dir_are_allowed_and_cleaned_up():
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "ob-sandbox-*")))
    res = run_program("with open('notes.txt', 'w') as f:\n    f.write('21')\nans = int(open('notes.txt').read()) * 2", **FAST)
    assert res.ok and res.answer == 42.0
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "ob-sandbox-*"))) <= before


@pytest.mark.parametrize("code", [
    "import subprocess\nsubprocess.run(['true'])\nans = 1",
    "import os\nos.system('true')\nans = 1",
    "import ctypes\nctypes.CDLL(None)\nans = 1",
    "import os\nos.fork()\nans = 1",
])
def test_processes_and_native_code_are_refused(code):
    assert run_program(code, **FAST).status == "forbidden"


def test_environment_is_empty():
    res = run_program("import os\nans = len([k for k in os.environ if 'KEY' in k or 'TOKEN' in k])", **FAST)
    assert res.ok and res.answer == 0.0


def test_errors_are_results_not_exceptions():
    res = run_programs(["ans = 1/0", "def broken(:\n  pass", "raise SystemExit(3)", "ans = 5"], **FAST)
    assert [r.status for r in res] == ["error", "error", "error", "ok"]


def test_large_batches_split_over_workers_keep_order():
    res = run_programs([f"ans = {i}" for i in range(40)], workers=2, **FAST)
    assert [r.answer for r in res] == [float(i) for i in range(40)]


def test_helpers():
    assert numeric("$1,200.") == 1200.0 and numeric("abc") is None and numeric(True) is None
    assert gold_answer("6 * 3 = <<6*3=18>>18\n#### 18") == 18.0
    assert clean_program("\n# Question: what?\n# Answer this question by implementing a solver() function.\nans = 1\n") == "ans = 1"
