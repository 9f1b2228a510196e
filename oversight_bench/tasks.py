"""Task selection for the CLI: names and groups to task objects, YAML folders (the data folder: `locations`).

Also the public API for task packs: `YamlTask`, `load_yaml_tasks`, `Records` and `LoadContext`
(a pack's own source format registers through the `register_loaders` hook).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Protocol as _Protocol

from oversight_bench.errors import BenchError, show_path
from oversight_bench.locations import DATA_ENV, data_dir  # the one rule, re-exported for task packs
from oversight_bench.questions import LoadResult
from oversight_bench.sources import LoadContext, Records
from oversight_bench.task_schema import TaskConfig, parse_config
from oversight_bench.yaml_task import YamlTask, load_yaml_dir

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


#: the paper's order (§3.1); other tasks follow alphabetically


def load_yaml_tasks(path: str | Path) -> list[YamlTask]:
    """The tasks of an `--include-path` folder (every *.yaml in it) or of one YAML file."""
    p = Path(path).expanduser()
    if p.is_file():
        return [YamlTask(parse_config(p), p)]
    if not p.is_dir():
        raise BenchError(f"--include-path {show_path(path)}: no such file or directory; expected a folder of task YAML files")
    tasks = load_yaml_dir(p)
    if not tasks:
        raise BenchError(f"--include-path {show_path(path)}: no *.yaml task files in it")
    return tasks


def _order(task: Task) -> tuple:
    """The paper's tasks in its order (`paper.order` in their YAML), then the others by name."""
    order = getattr(task, "paper_order", None)
    return (0, order, task.name) if order is not None else (1, 0, task.name)


def available_tasks(include_paths: list[str] = ()) -> dict[str, Task]:
    """Registered tasks plus those of the include paths (which may not reuse a registered name)."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    tasks = {name: reg.get("tasks", name) for name in reg.names("tasks")}
    for inc in include_paths or ():
        for task in load_yaml_tasks(inc):
            if task.name in tasks and getattr(tasks[task.name], "path", None) != task.path:
                raise BenchError(f"task name clash: {task.name!r} from {task.path} is already defined; rename it")
            tasks[task.name] = task
    return tasks


def default_tasks() -> list[str]:
    """The tasks a run uses when it names none: those whose plugin marks them `in_default_run`."""
    return [t.name for t in sorted(available_tasks().values(), key=_order) if getattr(t, "in_default_run", False)]


def resolve_tasks(names: list[str], include_paths: list[str] = ()) -> list[Task]:
    """Task objects for names and groups (extractive, closed, multimodal, all), deduplicated, in order."""
    tasks = available_tasks(include_paths)
    ordered = sorted(tasks.values(), key=_order)
    out: list[Task] = []
    for name in names:
        name = name.strip()
        if name in GROUPS:
            picked = [t for t in ordered if name == "all" or t.task_type == name]
        elif name in tasks:
            picked = [tasks[name]]
        elif include_paths:
            known = sorted(tasks) + sorted(GROUPS)
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise BenchError(f"unknown task {name!r}{hint} Known tasks: {', '.join(sorted(tasks))}; groups: {', '.join(sorted(GROUPS))}")
        else:
            from oversight_bench.registry import get_registry

            picked = [get_registry().get("tasks", name)]
        out.extend(t for t in picked if all(t is not o for o in out))
    if not out:
        raise BenchError("no tasks selected; give task names or a group (extractive, closed, multimodal, all)")
    return out


__all__ = [
    "DATA_ENV", "TASK_TYPES", "LoadContext", "Records", "TaskConfig", "YamlTask", "available_tasks", "data_dir",
    "load_yaml_tasks", "resolve_tasks",
]
