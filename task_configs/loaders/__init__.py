"""The dataset-specific loaders of the built-in tasks, registered through the `register_loaders`
hook (see `task_configs/__init__.py`). Each module is imported on first use, so a run that needs
MMLU never imports the MMMU code. A loader is `fn(cfg, ctx) -> Records`."""

from __future__ import annotations

import importlib
from typing import Callable

BUILTIN = {
    "table": "task_configs.loaders.table",
    "quality": "task_configs.loaders.quality",
    "gpqa": "task_configs.loaders.gpqa",
    "gsm8kqa": "task_configs.loaders.gsm8kqa",
    "prontoqa": "task_configs.loaders.prontoqa",
    "mmmu": "task_configs.loaders.mmmu",
    "lm_eval": "task_configs.loaders.lm_eval",
}


def lazy(module: str) -> Callable:
    """A loader that imports `module` and calls its `load` when a task first reads its rows."""

    def load(cfg, ctx):
        return importlib.import_module(module).load(cfg, ctx)

    load.__name__ = f"{module.rsplit('.', 1)[-1]}_loader"
    return load
