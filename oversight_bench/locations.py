"""Where oversight-bench reads its data and keeps its caches: one rule each, for every caller.

Data folder: `--data-dir`, else `$OVERSIGHT_BENCH_DATA`, else `../shared/datasets` relative to the
working directory (where the README's commands run) if it exists, else none (tasks then use their
hub or generator sources).

Cache: one root, `$OVERSIGHT_BENCH_CACHE`, else `$XDG_CACHE_HOME/oversight-bench`, else
`~/.cache/oversight-bench`, with one named subfolder per user of it (models/, suites/, a task's folder), so a user can
find, move or delete any of them by the one variable.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from oversight_bench.errors import BenchError, show_path

DATA_ENV = "OVERSIGHT_BENCH_DATA"
DEFAULT_DATA = Path("..") / "shared" / "datasets"
CACHE_ENV = "OVERSIGHT_BENCH_CACHE"
#: deprecated: per-folder variables of earlier versions, still honoured for their folder (with a note)
LEGACY_CACHE_ENV = {"models": "OVERSIGHT_BENCH_MODEL_CACHE", "suites": "OVERSIGHT_BENCH_SUITE_CACHE"}
_noted: set[str] = set()


def data_dir(flag: str | None = None) -> Path | None:
    """The dataset folder by the rule above; a folder named by the flag or the variable must exist."""
    for value, where in ((flag, "--data-dir"), (os.environ.get(DATA_ENV), DATA_ENV)):
        if value:
            path = Path(value).expanduser()
            if not path.is_dir():
                raise BenchError(f"{where}: data directory {show_path(value)} does not exist; expected a folder of datasets "
                                 f"(such as ../shared/datasets)")
            return path.resolve()
    return DEFAULT_DATA.resolve() if DEFAULT_DATA.is_dir() else None


def cache_root() -> Path:
    """The root of every cache (not created here)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "oversight-bench"


def cache_dir(name: str) -> Path:
    """The cache subfolder `name` (not created here). Each owner names its own: the model backend
    `models/`, the suites `suites/`, a task plugin its task's folder."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ValueError(f"cache folder name {name!r}: expected one plain folder name")
    legacy = LEGACY_CACHE_ENV.get(name)
    if legacy and os.environ.get(legacy):
        if legacy not in _noted:
            _noted.add(legacy)
            print(f"note: {legacy} is deprecated and will be dropped; set {CACHE_ENV} instead "
                  f"(its {name}/ subfolder is this cache)", file=sys.stderr)
        return Path(os.environ[legacy]).expanduser()
    return cache_root() / name
