"""The schema of a task YAML file (pydantic) and how a file is read against it.

`include: base.yaml` (a path relative to the including file) makes one file extend another: the
included mapping is merged under the file's own keys (nested mappings merged key by key). Files
whose name starts with `_` in a task folder are include-only bases, not tasks. `version` and a
hash of the resolved YAML (`config_hash`) are stored with a run, so a resumed run refuses a task
that changed. What the engine does with a valid file is `yaml_task`'s.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from oversight_bench.errors import MAX_COUNT, BenchError, validation_error
from oversight_bench.paths import check_relative_patterns
from oversight_bench.yamlio import read_yaml_mapping


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HubSource(_Strict):
    """A Hugging Face hub dataset, for machines with hub access."""

    path: str
    name: str | None = None
    split: str = "test"
    fields: dict[str, Any] = Field(default_factory=dict, description="overrides of `fields` for the hub's column names")
    exclude_rows: dict[str, list[Any]] = Field(default_factory=dict, description="drop rows whose column has one of these values")


class LocalSource(_Strict):
    """Files under the data directory (globs, relative to it)."""

    files: list[str]
    exclude: list[str] = Field(default_factory=list)
    format: Literal["auto", "csv", "jsonl", "json", "parquet"] = "auto"


class Source(_Strict):
    local: LocalSource | None = None
    hub: HubSource | None = None
    generator: dict[str, Any] | None = Field(None, description="options of the loader's built-in generator (no data needed)")


class Fields(_Strict):
    """Row keys (or `{key}` templates) for each part of a question."""

    id: str | None = None
    question: str
    article: str | None = None
    correct: str | None = None
    incorrect: str | list[str] | None = None
    choices: str | list[str] | None = None
    answer: str | None = None
    images: str | None = None
    meta: list[str] = Field(default_factory=list)


class Binary(_Strict):
    """How the two options are made.

    pair: `correct` against one of `incorrect` (a key, several keys, or a list; a text is split on
    `separator`), picked at random per question. choices: `choices[answer]` against a random other
    choice (`answer_format` index, letter or text). yes_no: a boolean `answer` becomes `labels`.
    """

    mode: Literal["pair", "choices", "yes_no"]
    answer_format: Literal["index", "letter", "text"] = "index"
    separator: str | None = None
    labels: tuple[str, str] = ("Yes", "No")
    drop_references: bool = Field(False, description="drop a question whose correct choice refers to other choices "
                                  "(all/none of the above, \"both A and B\", \"B and C only\"; `option_refs`), and never "
                                  "draw a wrong choice that does; counted and declared with the task's data")


class PaperTask(_Strict):
    task: str = Field(description="the paper's task this file is (its own name), or reads another way (gpqa_full: gpqa)")
    order: int | None = Field(None, ge=1, description="its place in the paper's task list (App. F); the paper's own tasks only")


class TaskConfig(_Strict):
    """One task file. `lm_eval: NAME` (or `{task: NAME, include_path: DIR}`) is the shorthand for an
    lm-eval multiple-choice task: the `lm_eval` loader reads it, and the file needs no fields of its own
    beyond what it changes (`name`, `task_type`, `sample_size`...)."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    task_type: Literal["extractive", "closed", "multimodal"]
    description: str = ""
    loader: str = "table"
    source: Source
    fields: Fields
    binary: Binary
    options: dict[str, Any] = Field(default_factory=dict, description="loader-specific settings")
    meta: dict[str, Any] = Field(default_factory=dict, description="added to every question's meta")
    sample_size: int = Field(128, ge=1, le=MAX_COUNT)
    seed: int = 0
    needs_images: bool | None = None
    version: int | float | str = Field(1, description="bump when the task's questions change; stored with each run")
    substitution: str | dict[str, str | None] | None = Field(
        None, description="how this task's data differs from the paper's, declared in every run that uses it; "
        "`{n}` (questions available) and the loader's counts are filled in. A mapping picks the text by the "
        "loader's `case`, else by the source (local, hub, generator), else `default`; null: the paper's data")
    paper: PaperTask | None = Field(None, description="the paper task this one is or stands for; null: not in the paper")
    in_default_run: bool = Field(False, description="run when a command names no tasks")

    @model_validator(mode="before")
    @classmethod
    def _lm_eval(cls, data: Any) -> Any:
        """`lm_eval: NAME`: the loader, fields and binary conversion of an lm-eval multiple-choice task
        (the correct choice against one other, drawn at random per question: the paper's conversion)."""
        if not isinstance(data, dict):
            return data
        if isinstance(data.get("task"), str) and "output_type" in data and "name" not in data and "fields" not in data:
            data = {"lm_eval": {"task": data["task"], "include_path": "."}}  # an lm-eval task file itself (--include-path)
        if "lm_eval" not in data:
            return data
        data = dict(data)
        spec = data.pop("lm_eval")
        spec = {"task": spec} if isinstance(spec, str) else spec
        if not isinstance(spec, dict) or not isinstance(spec.get("task"), str):
            raise ValueError("lm_eval: expected an lm-eval task name, or {task: NAME, include_path: DIR}")
        data.setdefault("name", re.sub(r"[^a-z0-9_.-]+", "_", spec["task"].lower()))
        data.setdefault("task_type", "closed")
        data["loader"] = "lm_eval"
        data.setdefault("source", {"generator": {}})
        data["options"] = {**(data.get("options") or {}), **spec}
        data.setdefault("fields", {"id": "id", "question": "question", "choices": "choices", "answer": "answer"})
        data.setdefault("binary", {"mode": "choices", "answer_format": "index"})
        data.setdefault("description", f"lm-eval task {spec['task']}: the correct choice against one other at random")
        return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def resolve_yaml(path: Path, _chain: tuple[Path, ...] = (), _root: Path | None = None) -> dict[str, Any]:
    """The task mapping of `path` with its `include:` chain merged in (the file's own keys win). An
    include follows the rules of `files:`: a relative path without `..`, and (links resolved) inside
    the folder of the file the chain started from, so a task folder reads nothing outside itself."""
    path = Path(path)
    real = path.resolve()
    root = _root or real.parent
    if real in _chain:
        cycle = " -> ".join(p.name for p in (*_chain, real)[list(_chain).index(real):])
        raise BenchError(f"{path}: include cycle: {cycle}")
    data = read_yaml_mapping(path, "task fields (name, task_type, source, fields, binary)", "task config")
    inc = data.pop("include", None)
    if inc is None:
        return data
    if not isinstance(inc, str) or not inc.strip():
        raise BenchError(f"{path}: field 'include': expected the path of another task YAML (relative to this file), got "
                         f"{type(inc).__name__}")
    check_relative_patterns([inc], str(path), "include", base="this file's folder", example="_base.yaml")
    target = path.parent / inc.strip()
    if not target.resolve().is_relative_to(root):
        raise BenchError(f"{path}: field 'include': {inc.strip()!r} leads outside the task folder {root} (through a "
                         f"link); expected a task YAML inside it")
    if not target.is_file():
        raise BenchError(f"{path}: field 'include': {inc.strip()} not found (looked for {target})")
    return _merge(resolve_yaml(target, (*_chain, real), root), data)


def parse_config(path: Path) -> TaskConfig:
    """Read and validate one task YAML; every problem is a one-line BenchError naming file and field."""
    data = resolve_yaml(path)
    try:
        cfg = TaskConfig.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), model=TaskConfig) from None
    if cfg.source.local is None and cfg.source.hub is None and cfg.source.generator is None:
        raise BenchError(f"{path}: field 'source': expected at least one of local, hub, generator")
    if cfg.source.local is not None:
        check_relative_patterns([*cfg.source.local.files, *cfg.source.local.exclude], str(path), "source.local.files")
    return cfg


def config_hash(cfg: TaskConfig) -> str:
    """A hash of the resolved, validated task YAML (defaults filled in, comments and layout ignored).
    `substitution` and `paper` are left out: they word the declaration, not the questions, so changing
    them leaves stored runs resumable (their deviations are recomputed when they resume)."""
    data = cfg.model_dump(mode="json", exclude={"substitution", "paper", "in_default_run"})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
