"""tests/conftest.py: under CI a test skipped for a missing package fails; other skips stay skips."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")

TESTS = '''
import pytest

def test_needs_an_extra():
    pytest.importorskip("surely_not_an_installed_module_xyz")

@pytest.mark.skipif(True, reason="llama-cpp-python is not installed")
def test_needs_a_backend():
    pass

@pytest.mark.skipif(True, reason="chromium not installed (apt-get install chromium)")
def test_needs_a_browser():
    pass
'''


def _pytest(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    shutil.copytree(CONFTEST.with_name("lane_guard"), tmp_path / "lane_guard")
    (tmp_path / "test_sample.py").write_text(TESTS)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)


def test_missing_package_skips_fail_under_ci(tmp_path):
    res = _pytest(tmp_path, "true")
    assert res.returncode == 1, res.stdout
    assert "1 failed, 1 skipped, 1 error" in res.stdout  # importorskip fails, skipif errors; a browser is no package
    assert "skipped for a missing package, which CI must install" in res.stdout


def test_skips_stay_skips_outside_ci(tmp_path):
    res = _pytest(tmp_path, None)
    assert res.returncode == 0 and "3 skipped" in res.stdout, res.stdout
