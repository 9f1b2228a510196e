"""The fast lane runs no real model: tests/conftest.py fails a test without the `integration` marker
that loads one, in the pytest process or in a process the test starts, even when the test swallows
the error; a marked test loads freely."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

SAMPLE = '''
import subprocess, sys
import pytest

def test_swallowed_named_model():
    from oversight_bench.models import build_model
    try:
        build_model("llamacpp:smollm2-135m,n_ctx=64")
    except Exception:
        pass

def test_gguf_in_a_child_process():
    code = "import llama_cpp; llama_cpp.Llama(model_path='/no/such/model.gguf')"
    subprocess.run([sys.executable, "-c", code], capture_output=True)

def test_fake_parts_are_no_real_model(tmp_path, monkeypatch):
    import hashlib
    from model_adapters import local_models
    pkg = tmp_path / "fakepart1"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "data" / "m.bin").write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(local_models.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setitem(local_models.MODELS, "smollm2-135m", local_models.LocalModel(
        "smollm2-135m", "m.gguf", hashlib.sha256(b"GGUF").hexdigest(), (("fakepart1", "data/m.bin"),), True))
    assert local_models.model_path("smollm2-135m").read_bytes() == b"GGUF"

@pytest.mark.integration
def test_marked_reaches_llama_cpp():
    import llama_cpp
    with pytest.raises(ValueError, match="does not exist"):
        llama_cpp.Llama(model_path="/no/such/model.gguf")
'''


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    shutil.copytree(TESTS / "lane_guard", tmp_path / "lane_guard")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    integration: a real model\n")
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one process", "two xdist workers"])
def test_the_fast_lane_fails_a_real_model_load_even_a_swallowed_one(tmp_path, workers):
    """The same in a worker of pytest-xdist, as .ci/tests runs the fast lane."""
    pytest.importorskip("llama_cpp")
    res = _pytest(tmp_path, "-m", "not integration", *workers)
    assert res.returncode == 1, res.stdout
    assert ("2 failed, 1 passed" + ("" if workers else ", 1 deselected")) in res.stdout, res.stdout
    assert "FAILED test_sample.py::test_swallowed_named_model" in res.stdout
    assert "FAILED test_sample.py::test_gguf_in_a_child_process" in res.stdout
    assert "local model 'smollm2-135m' (real weights)" in res.stdout
    assert "llama.cpp load of /no/such/model.gguf" in res.stdout
    assert "must be marked @pytest.mark.integration" in res.stdout


def test_an_integration_test_loads_freely(tmp_path):
    pytest.importorskip("llama_cpp")
    res = _pytest(tmp_path, "-m", "integration")
    assert res.returncode == 0 and "1 passed, 3 deselected" in res.stdout, res.stdout + res.stderr


BROWSER_SAMPLE = '''
def test_in_a_browser_file_no_real_model_either():
    from oversight_bench.models import build_model
    try:
        build_model("llamacpp:smollm2-135m,n_ctx=64")
    except Exception:
        pass
'''


def test_browser_tests_run_in_the_integration_lane_still_guarded(tmp_path):
    """A test in a test_*browser*.py file is left out of the fast lane and run by `-m integration`,
    where the guard still fails a real model load (a browser test needs none)."""
    pytest.importorskip("llama_cpp")
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    shutil.copytree(TESTS / "lane_guard", tmp_path / "lane_guard")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    integration: a real model\n")
    (tmp_path / "test_sample_browser.py").write_text(BROWSER_SAMPLE)
    (tmp_path / "test_sample.py").write_text("def test_plain():\n    pass\n")
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "integration", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "1 failed, 1 deselected" in res.stdout, res.stdout + res.stderr
    assert "FAILED test_sample_browser.py::test_in_a_browser_file_no_real_model_either" in res.stdout
    assert "must be marked @pytest.mark.integration" in res.stdout or "real weights" in res.stdout


def test_the_guard_refuses_before_touching_weights():
    """The refusal comes before model_path reads a byte: a missing weights package makes no difference."""
    code = ("from oversight_bench.models import build_model\n"
            "try:\n    build_model('llamacpp:qwen2.5-coder-1.5b')\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OVERSIGHT_BENCH_TEST_REAL_MODEL_LOG": ""})
    assert res.stdout.startswith("RealModelRefused local model 'qwen2.5-coder-1.5b' (real weights)"), res.stdout + res.stderr
