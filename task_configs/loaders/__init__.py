"""Loaders turn a source (local files, the hub, a generator) into rows for `YamlTask`.

One loader per source format, found by the name a task YAML gives in `loader:`. Built-ins are
imported on first use (a run that needs MMLU never imports the MMMU code); third-party packages
add theirs with `register_loader(name, fn)`. A loader is `fn(cfg, ctx) -> Records`.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Callable

from oversight_bench.errors import BenchError

_BUILTIN = {
    "table": "task_configs.loaders.table:load",
    "quality": "task_configs.loaders.quality:load",
    "gpqa": "task_configs.loaders.gpqa:load",
    "gsm8kqa": "task_configs.loaders.gsm8kqa:load",
    "prontoqa": "task_configs.loaders.prontoqa:load",
    "mmmu": "task_configs.loaders.mmmu:load",
}
LOADERS: dict[str, Callable | str] = dict(_BUILTIN)


def register_loader(name: str, fn: Callable | None = None):
    """Register `fn(cfg, ctx) -> Records` under `name`; usable as a decorator."""

    def deco(f: Callable) -> Callable:
        existing = LOADERS.get(name)
        if existing is not None and existing is not f and name in _BUILTIN:
            raise BenchError(f"loader name clash: {name!r} is a built-in loader; pick another name")
        LOADERS[name] = f
        return f

    return deco(fn) if fn is not None else deco


def get_loader(name: str) -> Callable:
    entry = LOADERS.get(name)
    if entry is None:
        close = difflib.get_close_matches(name, sorted(LOADERS), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise BenchError(f"unknown loader {name!r}{hint} Known loaders: {', '.join(sorted(LOADERS))}")
    if isinstance(entry, str):
        module, attr = entry.split(":")
        entry = getattr(importlib.import_module(module), attr)
        LOADERS[name] = entry
    return entry


__all__ = ["LOADERS", "register_loader", "get_loader"]
