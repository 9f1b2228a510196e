"""Run configuration: the same fields from CLI flags or a `--config run.yaml`, validated by pydantic."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from oversight_bench.errors import BenchError
from oversight_bench.yamlio import read_yaml_mapping
from oversight_bench.models import DEFAULT_AGENT, DEFAULT_JUDGE
from oversight_bench.protocol import ProtocolOptions

DEFAULT_TASKS = ["boolq", "mmlu", "prontoqa"]
DEFAULT_PROTOCOLS = ["qa_without_article", "qa_with_article", "consultancy", "debate"]


class RunConfig(BaseModel):
    """Everything that defines a run. Fields that change results are part of its identity."""

    model_config = ConfigDict(extra="forbid")

    judge: str = DEFAULT_JUDGE
    agent: str = DEFAULT_AGENT
    tasks: list[str] = Field(default_factory=lambda: list(DEFAULT_TASKS))
    protocols: list[str] = Field(default_factory=lambda: list(DEFAULT_PROTOCOLS))
    limit: int | None = Field(None, ge=1, description="questions per task (default: the task's sample size)")
    seed: int = 0
    output: str = "runs/default"
    data_dir: str | None = None
    include_path: list[str] = Field(default_factory=list)
    concurrency: int | None = Field(None, ge=1, description="in-flight calls per model (default: the backend's)")
    options: ProtocolOptions = Field(default_factory=ProtocolOptions)
    #: run directories whose stored model calls are reused (identical requests only); not identity
    cache_from: list[str] = Field(default_factory=list)
    #: an ablation in one config: variant name -> option overrides; each variant runs into
    #: <output>/<name> and `report <output>` reads them all (configs/paper/ablation_*.yaml)
    variants: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @field_validator("variants")
    @classmethod
    def _check_variants(cls, v: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for name, opts in v.items():
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
                raise ValueError(f"variant name {name!r} must be letters, digits, '_', '.', '-' (it names a folder)")
            if not isinstance(opts, dict):
                raise ValueError(f"variant {name!r} must map option names to values, e.g. {{rounds: 1}}")
            ProtocolOptions.model_validate(opts)
        return v

    @field_validator("tasks", "protocols", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = [x.strip() for x in v.split(",") if x.strip()]
        return v


def _first_error(exc: ValidationError, where: str) -> BenchError:
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
    return BenchError(f"{where}: field {loc!r}: {err['msg']} (got {err.get('input')!r})")


def load_run_config(path: str | None, overrides: dict[str, Any]) -> RunConfig:
    """Merge a YAML file (if any) with CLI overrides (flags win) and validate."""
    data: dict[str, Any] = {}
    where = "command line"
    if path:
        where = path
        data = read_yaml_mapping(path, "run options (judge, agent, tasks, protocols, ...)")
    opts = dict(data.get("options") or {})
    cli_opts = overrides.pop("options", {}) or {}
    opts.update(cli_opts)
    data.update({k: v for k, v in overrides.items() if v is not None})
    data["options"] = opts
    if cli_opts and isinstance(data.get("variants"), dict):  # flags win over a variant's values too
        data["variants"] = {k: {**(v if isinstance(v, dict) else {}), **cli_opts} for k, v in data["variants"].items()}
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise _first_error(exc, where) from None


def expand_variants(config: RunConfig) -> list[RunConfig]:
    """The runs a config stands for: itself, or one per variant (options overridden, output
    `<output>/<variant>`), in the order written."""
    if not config.variants:
        return [config]
    out = []
    for name, overrides in config.variants.items():
        options = ProtocolOptions.model_validate({**config.options.model_dump(), **overrides})
        out.append(config.model_copy(update={"options": options, "variants": {},
                                             "output": str(Path(config.output) / name)}))
    return out
