"""Under CI (env CI=true, set by .ci/run) a test skipped because a package is missing fails: every
extra the README's test command installs must really be there, or CI says so."""

from __future__ import annotations

import os
import re

import pytest

#: skip reasons that mean "a package is not installed" (pytest.importorskip, find_spec checks)
MISSING_PACKAGE = re.compile(r"is not installed|could not import|No module named", re.I)


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and _ci() and isinstance(rep.longrepr, tuple) and MISSING_PACKAGE.search(str(rep.longrepr[2])):
        rep.outcome = "failed"
        rep.longrepr = f"skipped for a missing package, which CI must install: {rep.longrepr[2]}"
