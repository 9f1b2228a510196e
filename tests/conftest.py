"""Two checks on every run.

Under CI (env CI=true, set by .ci/run) a test skipped because a package is missing fails: every extra
the README's test command installs must really be there, or CI says so.

A test without the `integration` marker that loads a real local model fails (tests/lane_guard): the
fast lane (`-m "not integration"`) stays fast and needs no model weights, and a test that does need
them cannot slip in unmarked.

Browser tests (files named test_*browser*.py: selenium driving headless Chromium, tens of seconds
each) run in the integration lane: every test in them is marked `browser` and `integration` here.
They load no real model, so the guard stays on for them.
"""

from __future__ import annotations

import importlib.util
import os
import re
import tempfile
from pathlib import Path

import pytest

#: skip reasons that mean "a package is not installed" (pytest.importorskip, find_spec checks)
MISSING_PACKAGE = re.compile(r"is not installed|could not import|No module named", re.I)

GUARD_DIR = Path(__file__).resolve().parent / "lane_guard"
_spec = importlib.util.spec_from_file_location("lane_guard", GUARD_DIR / "sitecustomize.py")
lane_guard = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lane_guard)


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def pytest_configure(config):
    """Every process the tests start imports the guard (PYTHONPATH); this one installs it here."""
    fd, log = tempfile.mkstemp(prefix="obench-real-models-", suffix=".log")
    os.close(fd)
    config._real_model_log = (Path(log), 0)
    os.environ.pop(lane_guard.GUARD_ENV, None)  # on only while a test runs
    os.environ[lane_guard.LOG_ENV] = log
    os.environ["PYTHONPATH"] = os.pathsep.join([str(GUARD_DIR), *filter(None, [os.environ.get("PYTHONPATH")])])
    lane_guard.install()
    config.addinivalue_line("markers", "browser: drives a real browser (files test_*browser*.py); runs in the "
                            "integration lane, with the real-model guard on")


BROWSER_FILE = re.compile(r"^test_.*browser.*\.py$")


def pytest_collection_modifyitems(config, items):
    """Browser tests go to the integration lane (`-m integration`), out of the fast one."""
    for item in items:
        if BROWSER_FILE.match(item.path.name):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.integration)


def pytest_unconfigure(config):
    log = getattr(config, "_real_model_log", None)
    if log:
        log[0].unlink(missing_ok=True)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """The guard is on from the item's setup (its module fixtures included) to its teardown."""
    if item.get_closest_marker("integration") is None or item.get_closest_marker("browser") is not None:
        os.environ[lane_guard.GUARD_ENV] = item.nodeid
    else:
        os.environ.pop(lane_guard.GUARD_ENV, None)
    try:
        yield
    finally:
        os.environ.pop(lane_guard.GUARD_ENV, None)


def _new_real_model_loads(config) -> list[str]:
    path, offset = config._real_model_log
    with path.open("rb") as f:
        f.seek(offset)
        new = f.read()
    config._real_model_log = (path, offset + len(new))
    return new.decode("utf-8", "replace").splitlines()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and _ci() and isinstance(rep.longrepr, tuple) and MISSING_PACKAGE.search(str(rep.longrepr[2])):
        rep.outcome = "failed"
        rep.longrepr = f"skipped for a missing package, which CI must install: {rep.longrepr[2]}"
    loads = _new_real_model_loads(item.config)
    if loads:
        rep.outcome = "failed"
        rep.longrepr = (f"{lane_guard.HINT}; this test (in its {call.when}) tried to load:\n  "
                        + "\n  ".join(loads) + (f"\n\n{rep.longrepr}" if rep.longrepr else ""))


@pytest.fixture(autouse=True)
def _secrets_stay_with_their_test():
    """A secret a test registers (a spec's key, a query value) is process state: left behind, its
    masked runs would scrub a later test's stored model outputs (`sk-SECRET` masks "SECRET" in a
    scripted turn, and the replayed turn then differs). Each test ends with the secrets it began with."""
    from oversight_bench import redact

    before = set(redact._secrets)
    yield
    if redact._secrets != before:
        with redact._lock:
            redact._secrets.clear()
            redact._secrets.update(before)
            redact._pattern, redact._lowered = redact._secret_pattern(before) if before else (None, ())
