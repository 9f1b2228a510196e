"""Run configuration: the same fields from CLI flags or a `--config run.yaml`, validated by pydantic."""

from __future__ import annotations

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

    @field_validator("tasks", "protocols", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = [x.strip() for x in v.split(",") if x.strip()]
        return v

    def identity(self) -> dict[str, Any]:
        """What must match for a re-run in the same directory to resume it."""
        d = self.model_dump(mode="json")
        for k in ("output", "concurrency", "limit", "data_dir", "include_path"):
            d.pop(k)
        return d


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
    opts.update(overrides.pop("options", {}) or {})
    data.update({k: v for k, v in overrides.items() if v is not None})
    data["options"] = opts
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise _first_error(exc, where) from None
