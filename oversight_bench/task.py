"""What a task plugin provides. YAML-declared tasks (task_configs/) are one implementation."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol as _Protocol

from oversight_bench.questions import LoadResult

TASK_TYPES = ("extractive", "closed", "multimodal")
GROUPS = {"extractive", "closed", "multimodal", "all"}


class Task(_Protocol):
    name: str
    task_type: str
    sample_size: int

    def load(self, data_dir: Path | None, limit: int | None, seed: int) -> LoadResult:
        """A seeded, stable sample of `limit` (default `sample_size`) binary questions: a list,
        or an iterator that a run streams (see `LoadResult`)."""
        ...
