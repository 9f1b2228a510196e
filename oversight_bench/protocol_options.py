"""Protocol options: each protocol declares its own `Options` (a pydantic model), the settings every
protocol shares come from `CommonOptions`, and a run's options are one model made of the `Options`
of the protocols it runs (`options_model`). `-o KEY=VALUE`, a config's `options:`, "did you mean",
`run --help`, config.json and the derived deviations (`oversight_bench.deviations`) all read these
models, so a third-party protocol's option is handled exactly like a built-in one.

Declare an option with `option(default, paper=..., label=...)`: `paper` is the paper's value (or
`NO_PAPER_VALUE` where the paper leaves it to the API, e.g. a token cap); an option declared
without one (or as a plain pydantic `Field`) is outside the paper and every run that has it says so.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from oversight_bench.errors import BenchError
from oversight_bench.registry import KIND_CHECKS, get_registry

#: the `paper` value of an option the paper leaves to the API (it sets no token cap): such an
#: option is declared as a deviation at every value
NO_PAPER_VALUE = "not set by the paper"
#: the `paper` value of an option the paper has no counterpart for (the default of `option`)
OUTSIDE_PAPER = "outside the paper"


def option(default: Any, paper: Any = OUTSIDE_PAPER, label: str = "", *, judge: bool = False, **kw: Any) -> Any:
    """An option field with the paper's value and how a deviation from it reads (`{v}`: this run's
    value, `{p}`: the paper's; default "KEY={v}"). `judge`: the option shapes the judge's requests only
    (the others shape the transcripts, so they say nothing of imported transcripts, which others made).
    Other keywords go to pydantic's `Field` (`ge`, `le`, `description`, ...)."""
    return Field(default, json_schema_extra={"paper": paper, "label": label, "judge": judge}, **kw)


def option_meta(field: Any) -> dict[str, Any]:
    """An option field's paper value, label and judge flag (a plain `Field`: outside the paper)."""
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    return {"paper": extra.get("paper", OUTSIDE_PAPER), "label": extra.get("label") or "", "judge": bool(extra.get("judge"))}


def judge_option_names() -> set[str]:
    """The options that shape the judge's requests (`option(..., judge=True)`), of every installed protocol."""
    return {name for name, f in all_options_model().model_fields.items() if option_meta(f)["judge"]}


#: the judge options that are a model's sampling settings: a person judging (`serve`) has none of them
JUDGE_SAMPLING = ("judge_temperature", "judge_max_tokens", "predict_max_tokens", "qa_samples")


class CommonOptions(BaseModel):
    """The settings every protocol shares: the paper's ablations (§4.1) and the budgets it leaves to
    the API. Every field carries the paper's value, so `oversight_bench.deviations` declares every
    value that differs. A protocol adds its own by subclassing this as its `Options`.

    Sampling (§3.3 says only "default sampling options"): agents sample at temperature 1.0, the
    default of the OpenAI and Gemini APIs the paper used, so best-of-N draws distinct arguments.
    Judges answer at temperature 0.0, their most likely answer: not the API default, so it is a
    declared deviation (`judge_temperature=1.0` is the literal reading; configs/paper/README.md).

    Agents think privately, then argue (H.1, H.2). Thinking and argument have their own budgets:
    when the thinking budget is spent, the turn is continued from "Argument:" (a forced turn), so
    every turn reaches the judge as an argument; an argument cut at its budget is marked cut.
    `best_of_n` is here, not on debate's options, because cross-play and the capability check read it.
    """

    model_config = ConfigDict(extra="forbid")

    rounds: int = option(3, 3, "rounds {v} (paper {p})", ge=1, le=10, description="debate/consultancy rounds (paper: 3, §3.2.2)")
    best_of_n: int = option(4, 4, "best-of-N {v} (paper {p})", ge=1, le=16,
                            description="debater samples per turn, the debater model picks the most persuasive "
                            "(paper: 4 for debaters, §4.1; consultants always sample once)")
    judge_mode: Literal["predict", "cot", "probs"] = option(
        "predict", "predict", "judge mode {v} (paper: {p})",
        judge=True, description="predict: the judge writes 'Answer: N' (paper); cot: reasons first; probs (not the "
        "paper's): the predict prompt, its answer read as the more probable of the answer tokens after 'Answer: ', "
        "nothing generated, so a judge too small to follow the format still answers (needs logprobs)")
    few_shot: int = option(0, 0, "judge {v}-shot (paper {p}-shot)", judge=True, ge=0, le=16,
                           description="judge few-shot examples, balanced answer order (paper: 0)")
    answer_order: Literal["random", "both"] = option("both", "both", "answer order {v} (paper: {p})",
                                                     description="both answer orders per question, the "
                                                     "debate regenerated for each (paper: both, App. D)")
    word_limit: int = option(150, 150, "word limit {v} (paper {p})", ge=10, le=2000,
                             description="words per argument asked for in the prompt (paper: 150)")
    truncate_words: bool = option(False, False, "arguments cut at the word limit (paper: asked, not cut)",
                                  description="also cut the argument shown to others at word_limit words "
                                  "(the paper only asks; off by default)")
    agent_temperature: float = option(1.0, 1.0, "agent temperature {v} (paper: API default, {p})", ge=0.0, le=2.0,
                                      description="consultants/debaters (§3.3: API default)")
    judge_temperature: float = option(0.0, 1.0, "judge temperature {v} (paper: \"default sampling options\", read as the API "
                                      "default {p})", judge=True, ge=0.0, le=2.0,
                                      description="judge answers, questions and best-of-N picks")
    thinking_max_tokens: int = option(1024, NO_PAPER_VALUE, "agent thinking budget {v} tokens, then the turn is "
                                      "continued from \"Argument:\" (in the same generation, or by a second call asking "
                                      "for the argument alone where the backend cannot continue one; paper: no cap)", ge=16,
                                      description="tokens an agent may spend under 'Thinking:' before its turn is "
                                      "continued from 'Argument:' (a forced turn)")
    argument_max_tokens: int = option(512, NO_PAPER_VALUE, "agent argument budget {v} tokens, a longer argument is "
                                      "cut and marked (paper: no cap)", ge=16,
                                      description="tokens an agent's argument may take (cut there, and marked cut)")
    judge_max_tokens: int = option(256, NO_PAPER_VALUE, "judge question and chain-of-thought budget {v} tokens (paper: no cap)",
                                   judge=True, ge=4, description="judge questions and chain-of-thought verdicts")
    predict_max_tokens: int = option(24, NO_PAPER_VALUE, "judge predict-mode verdict budget {v} tokens (paper: no cap)",
                                     judge=True, ge=4, description='predict-mode verdicts ("Answer: N" and little else)')
    judge_tool: str | None = option(
        None, None, "judge tool {v}: the judge's prompt also shows what the tool reports on each answer (outside the "
        "paper, whose judges have no tools)", judge=True, exclude_if=lambda v: v is None,
        description="a judge tool (beyond the paper): its report on each answer goes into every judge prompt, after "
        "the answers and the transcript, e.g. execute: each GSM8KQA program's sandboxed result; only on tasks the "
        "tool supports. Not stored when off, so runs without a tool keep the options they always had")

    @field_validator("judge_tool", mode="before")
    @classmethod
    def _tool_name(cls, v: Any) -> Any:
        """`none`, `off` or an empty value turn the tool off (`-o judge_tool=none` on a re-judging of a run
        that had one); a name must be a plain word (it names the tool in configs and reports)."""
        if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off", "null", "false")) or v is False:
            return None
        if not isinstance(v, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", v.strip()):
            raise ValueError("a judge tool's name (letters, digits, '_', '.', '-'), or none")
        return v.strip()

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        """A run stored before thinking and argument had their own budgets holds one cap for both
        (`agent_max_tokens`); re-judging it needs none of the agent budgets, so it is dropped here
        and `deviations` still declares it from the stored options.

        Any other unknown key is a typo far more often than not: the error names the nearest option
        and all of them (and, for an option of a protocol the run does not include, that protocol).
        A BenchError passes through pydantic unchanged, so the line is this one wherever the options
        came from (`-o KEY=VALUE`, a config's `options:` or a variant)."""
        if not isinstance(data, dict):
            return data
        data = {k: v for k, v in data.items() if k != "agent_max_tokens"}
        unknown = [k for k in data if k not in cls.model_fields]
        if unknown:
            raise BenchError(unknown_option_message(str(unknown[0]), cls))
        return data

    @classmethod
    def paper_value(cls, name: str) -> Any:
        return option_meta(cls.model_fields[name])["paper"]


def unknown_option_message(key: str, model: type[BaseModel]) -> str:
    known = sorted(model.model_fields)
    owners = [p.name for p in _installed() if key in p.Options.model_fields]
    if owners:
        return (f"option {key!r} belongs to protocol {', '.join(owners)}, which this run does not include; "
                f"add it to --protocols, or drop the option")
    close = difflib.get_close_matches(key, known + sorted(all_options_model().model_fields), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    return (f"unknown protocol option {key!r}{hint} expected one of {', '.join(known)} "
            f"(as -o KEY=VALUE or under options: in a config)")


def _installed() -> list[Any]:
    """The installed protocols (none where the registry cannot load: an option error stays one line)."""
    try:
        reg = get_registry()
        return [reg.get("protocols", name) for name in reg.names("protocols")]
    except Exception:  # noqa: BLE001 - only a hint in an error message
        return []


def _owner(cls: type, name: str) -> type:
    """The class in `cls`'s MRO that declares field `name` (where two protocols' options meet)."""
    for klass in cls.__mro__:
        if name in vars(klass).get("__annotations__", {}):
            return klass
    return cls


def option_clash(options: type[BaseModel], others: Iterable[type[BaseModel]]) -> str | None:
    """The first option of `options` that another protocol's options declare differently (both
    declare the name, neither inherits it from the other), or None."""
    for other in others:
        for name in options.model_fields.keys() & other.model_fields.keys():
            if _owner(options, name) is not _owner(other, name):
                return name
    return None



def _protocol_clash(protocol: Any, others: list[Any]) -> str | None:
    """Why a protocol cannot be registered beside the registry's entries `others` (None: it can): its
    `Options` must subclass `CommonOptions` and declare no option another protocol declares differently."""
    options = getattr(protocol, "Options", CommonOptions)
    if not (isinstance(options, type) and issubclass(options, CommonOptions)):
        return "its Options is not a subclass of oversight_bench.api.CommonOptions"
    for other in others:
        key = option_clash(options, [getattr(other.obj, "Options", CommonOptions)])
        if key is not None:
            return f"its option {key!r} is declared differently by protocol {other.name} of {other.package}"
    return None


KIND_CHECKS["protocols"] = _protocol_clash


_MODELS: dict[tuple[type, ...], type[CommonOptions]] = {}


def options_model(protocols: Iterable[Any]) -> type[CommonOptions]:
    """The options of a run of `protocols` (Protocol objects or classes): one model made of their
    `Options` (the common settings, then each protocol's own), cached per set of classes."""
    classes: list[type[CommonOptions]] = []
    for p in protocols:
        cls = getattr(p, "Options", CommonOptions)
        if cls not in classes:
            classes.append(cls)
    # a class another one inherits from adds nothing (and would break the merged class's MRO)
    bases = tuple(c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)) or (CommonOptions,)
    if len(bases) == 1:
        return bases[0]
    key = tuple(sorted(bases, key=lambda c: (c.__module__, c.__qualname__)))
    if key not in _MODELS:
        _MODELS[key] = create_model("RunOptions", __base__=key, __module__=__name__)
    return _MODELS[key]


def run_options_model(names: Iterable[str]) -> type[CommonOptions]:
    """`options_model` of the installed protocols named (an unknown name: the registry's error)."""
    reg = get_registry()
    return options_model(reg.get("protocols", n) for n in names)


def all_options_model() -> type[CommonOptions]:
    """Every installed protocol's options in one model: what `run --help` and deviations know of."""
    return options_model(_installed())


def stored_options(names: Iterable[str], data: dict[str, Any] | None, overrides: dict[str, Any] | None = None,
                   ) -> CommonOptions:
    """The options of a stored run of protocols `names` (those installed), with `overrides` on top.
    A stored key another installed protocol declares is left out (runs stored before protocols owned
    their options kept every option); an override is held to the run's own protocols."""
    installed = {p.name: p for p in _installed()}
    model = options_model(installed[n] for n in names if n in installed)
    others = all_options_model().model_fields
    kept = {k: v for k, v in (data or {}).items() if k in model.model_fields or k not in others}
    return model.model_validate({**kept, **(overrides or {})})


def same_options(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether two stored option dicts mean the same run: a protocol's own option that one of them
    lacks counts as its default (a run stored before its protocol owned it kept every option)."""
    fields = all_options_model().model_fields
    for key in set(old) | set(new):
        default = fields[key].default if key in fields and key not in CommonOptions.model_fields else None
        if old.get(key, default) != new.get(key, default):
            return False
    return True


def own_options(protocol: Any, options: CommonOptions) -> CommonOptions:
    """`options` as `protocol`'s own `Options` (the run's options, or the values its fields share)."""
    cls = getattr(protocol, "Options", CommonOptions)
    if isinstance(options, cls):
        return options
    values = options.model_dump()
    return cls.model_validate({k: v for k, v in values.items() if k in cls.model_fields})
