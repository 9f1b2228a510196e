"""Command configuration: the same fields from CLI flags or a `--config` YAML, validated by pydantic.

`run` (RunConfig) and `elo` (EloConfig) share their common fields (SharedConfig) and one merge rule
(`load_config`: the YAML, then every flag given on top), so a flag means the same in both."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationError, ValidationInfo, field_validator, model_validator

from oversight_bench.deviations import ELO_BOOTSTRAP, ELO_PRIOR_GAMES, ELO_SCALE
from oversight_bench.errors import MAX_COUNT, BenchError, validation_error
from oversight_bench.yamlio import read_yaml_mapping
from oversight_bench.models import default_model
from oversight_bench.protocol import default_protocols
from oversight_bench.protocol_options import CommonOptions, run_options_model
from oversight_bench.tasks import default_tasks

C = TypeVar("C", bound=BaseModel)


#: fields that name a file or folder (a list: each of its items does): checked by `_check_path`
PATH_FIELDS = ("data_dir", "cache_from", "output", "include_path")


def check_path_text(value: str) -> str:
    """A path as text the file system can take: no NUL byte and encodable in the file system's
    encoding (a lone surrogate is not); ValueError (with the value shown by repr) otherwise."""
    import os

    if "\0" in value:
        raise ValueError(f"{value[:80]!r} holds a NUL byte, which no path can hold; expected a file or folder path")
    try:
        os.fsencode(value)
    except UnicodeEncodeError as exc:
        raise ValueError(f"{value[:80]!r} holds {value[exc.start:exc.end]!r}, which the file system's encoding "
                         f"cannot write; expected a file or folder path") from None
    return value


class SharedConfig(BaseModel):
    """The fields every command that runs models takes, with the same flags (`oversight_bench.flags`)."""

    model_config = ConfigDict(extra="forbid")

    seed: int = Field(0, ge=-2**63, lt=2**63, description="a whole number (seed for sampling, answer order and generation)")
    data_dir: str | None = Field(None, description="a dataset folder")
    concurrency: int | None = Field(None, ge=1, le=MAX_COUNT, description="in-flight calls per model (default: the backend's)")
    #: run directories whose stored model calls are reused (identical requests only); not identity
    cache_from: list[str] = Field(default_factory=list, description="run directories")
    tasks: list[str] = Field(default_factory=list, description="task names or groups")
    #: the budget guard (`oversight_bench.budget`), not identity: the run stops (exit 1) once its stored
    #: calls used this many tokens (prompt + reply) / cost this many USD; a resume with a higher limit continues
    max_total_tokens: int | None = Field(None, ge=1, lt=2**63, description="a whole number of tokens >= 1")
    max_cost: float | None = Field(None, gt=0, allow_inf_nan=False, description="a number of US dollars > 0")

    @field_validator(*PATH_FIELDS, check_fields=False)
    @classmethod
    def _check_path(cls, v: Any) -> Any:
        for item in v if isinstance(v, list) else [v]:
            if isinstance(item, str):
                check_path_text(item)
        return v

    @field_validator("tasks", mode="before")
    @classmethod
    def _split_tasks(cls, v: Any) -> Any:
        return [x.strip() for x in v.split(",") if x.strip()] if isinstance(v, str) else v

    @field_validator("tasks")
    @classmethod
    def _tasks_once(cls, v: list[str]) -> list[str]:
        return once(v, "task")


def once(names: list[str], what: str) -> list[str]:
    """`names` as given, refused where one is given twice (`debate,debate`): the list is the run's
    identity, so a duplicate would make the same work a different run that a resume refuses. A task
    that is also in a group named beside it (`closed,arith`) is not a literal duplicate: the run's
    tasks are deduplicated when the groups are expanded (`tasks.resolve_tasks`)."""
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{what} {name!r} is given twice; name each {what} once")
        seen.add(name)
    return names


class RunConfig(SharedConfig):
    """Everything that defines a run. Fields that change results are part of its identity."""

    judge: str = Field(default_factory=lambda: default_model("judge"))
    agent: str = Field(default_factory=lambda: default_model("agent"))
    tasks: list[str] = Field(default_factory=lambda: default_tasks(), description="task names or groups")
    protocols: list[str] = Field(default_factory=lambda: default_protocols())
    limit: int | None = Field(None, ge=1, le=MAX_COUNT, description="questions per task (default: the task's sample size)")
    output: str = "runs/default"
    include_path: list[str] = Field(default_factory=list)
    #: validated once, by the options of the run's protocols (`run_options_model`): typed, and
    #: stored whole in config.json (`SerializeAsAny`: a protocol's own options too)
    options: SerializeAsAny[CommonOptions] = Field(default_factory=dict, validate_default=True)
    #: an ablation in one config: variant name -> option overrides; each variant runs into
    #: <output>/<name> and `report <output>` reads them all (configs/paper/ablation_*.yaml)
    variants: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @field_validator("options", mode="before")
    @classmethod
    def _run_options(cls, v: Any, info: ValidationInfo) -> Any:
        """The options as the run's protocols declare them (each protocol's `Options`), validated here once."""
        names = info.data.get("protocols")
        model = run_options_model(names) if isinstance(names, list) else CommonOptions
        if isinstance(v, CommonOptions):  # another protocol's option counts only where it was set, not as a default
            v = {k: x for k, x in v.model_dump().items() if k in model.model_fields or k in v.model_fields_set}
        return model.model_validate(v) if isinstance(v, dict) else v

    @field_validator("variants")
    @classmethod
    def _check_variants(cls, v: dict[str, dict[str, Any]], info: ValidationInfo) -> dict[str, dict[str, Any]]:
        options = info.data.get("options")
        for name, opts in v.items():
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
                raise ValueError(f"variant name {name!r} must be letters, digits, '_', '.', '-' (it names a folder)")
            if not isinstance(opts, dict):
                raise ValueError(f"variant {name!r} must map option names to values, e.g. {{rounds: 1}}")
            type(options or CommonOptions()).model_validate(opts)
        return v

    @field_validator("protocols", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = [x.strip() for x in v.split(",") if x.strip()]
        return v

    @field_validator("protocols")
    @classmethod
    def _protocols_once(cls, v: list[str]) -> list[str]:
        return once(v, "protocol")


class EloConfig(SharedConfig):
    """The `elo` command: new cross-play debates (debaters, judge, tasks) and the Elo fit (App. E)."""

    debaters: list[str] = Field(default_factory=list, description="debater specs, comma-separated")
    judge: str | None = Field(None, description="the judge's model spec")
    limit: int | None = Field(None, ge=1, le=MAX_COUNT, description="cross-play games per task (instead of pairings)")
    pairings: int | None = Field(None, ge=1, le=MAX_COUNT, description="cross-play games in all (default 512, the paper's)")
    selfplay: int | None = Field(None, ge=0, le=MAX_COUNT, description="self-play questions per task (0: none)")
    scale: float = Field(ELO_SCALE, gt=0, description="the Elo scale, > 0 (paper: 500)")
    bootstrap: int = Field(ELO_BOOTSTRAP, ge=0, le=MAX_COUNT, description="bootstrap seeds, 0 or more (paper: 500)")
    prior_games: float = Field(ELO_PRIOR_GAMES, ge=0, description="virtual drawn games per pair, 0 or more (0: the paper's bare fit)")
    output: str | None = Field(None, description="a folder for elo.json and the figure")

    @field_validator("debaters", mode="before")
    @classmethod
    def _split_debaters(cls, v: Any) -> Any:
        from oversight_bench.models import split_specs

        return split_specs(v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _consistent(self) -> "EloConfig":
        if not self.output:
            raise ValueError("no output folder; give --output DIR (or `output:` in --config)")
        if self.limit is not None and self.pairings is not None:
            raise ValueError("give games per task (--limit) or games in all (--pairings), not both")
        if self.new_games() and not (self.debaters and self.judge and self.tasks):
            raise ValueError("new cross-play needs --debaters SPEC,SPEC,... --judge SPEC --tasks ...; "
                             "or give stored run directories")
        if not self.new_games() and (self.selfplay is not None or self.limit is not None or self.pairings is not None):
            raise ValueError("--selfplay, --limit and --pairings set the games of new cross-play debates; "
                             "expected them with --debaters/--judge/--tasks")
        return self

    def new_games(self) -> bool:
        return bool(self.debaters or self.judge or self.tasks)

    def games(self) -> int:
        """Cross-play games in all: `limit` per task, else `pairings`, else the paper's 512."""
        return self.limit * len(self.tasks) if self.limit is not None else self.pairings or 512


def load_config(model: type[C], path: str | None, overrides: dict[str, Any], expected: str,
                merge: Callable[[dict[str, Any]], None] | None = None, where: str = "command line") -> C:
    """A YAML file's fields (if any) with every flag that was given on top (`merge`: how a command
    combines nested ones), validated by `model`; `expected` says what the file should hold.
    Repeatable flags come as tuples (empty: not given)."""
    data = read_yaml_mapping(path, expected) if path else {}
    given = set()
    for key, value in overrides.items():
        if isinstance(value, tuple):
            value = list(value) or None
        if value is not None:
            data[key] = value
            given.add(key)
    if merge is not None:
        merge(data)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, path or where, model=model, flags=given) from None


def load_run_config(path: str | None, overrides: dict[str, Any]) -> RunConfig:
    """`load_config` for `run`: protocol options given as flags are merged into the file's
    `options` (and each variant's) rather than replacing them."""
    cli_opts = overrides.pop("options", None) or {}

    def merge_options(data: dict[str, Any]) -> None:
        if not cli_opts:
            return
        file_opts = data.get("options") or {}
        data["options"] = {**file_opts, **cli_opts} if isinstance(file_opts, dict) else file_opts
        if isinstance(data.get("variants"), dict):  # flags win over a variant's values too
            data["variants"] = {k: {**(v if isinstance(v, dict) else {}), **cli_opts} for k, v in data["variants"].items()}

    return load_config(RunConfig, path, overrides, "run options (judge, agent, tasks, protocols, ...)", merge_options)


def load_elo_config(path: str | None, overrides: dict[str, Any]) -> EloConfig:
    """`load_config` for `elo`: games per task (limit) and games in all (pairings) are one
    setting, so the one given as a flag replaces the file's other."""
    def one_count(data: dict[str, Any]) -> None:
        for flag, other in (("limit", "pairings"), ("pairings", "limit")):
            if overrides.get(flag) is not None and overrides.get(other) is None:
                data.pop(other, None)

    return load_config(EloConfig, path, overrides, "elo options (debaters, judge, tasks, pairings, selfplay, scale, "
                                                   "bootstrap, prior_games, output, seed, ...)", one_count, where="elo")


def expand_variants(config: RunConfig) -> list[RunConfig]:
    """The runs a config stands for: itself, or one per variant (options overridden, output
    `<output>/<variant>`), in the order written."""
    if not config.variants:
        return [config]
    out = []
    for name, overrides in config.variants.items():
        options = type(config.options).model_validate({**config.options.model_dump(), **overrides})
        out.append(config.model_copy(update={"options": options, "variants": {},
                                             "output": str(Path(config.output) / name)}))
    return out
