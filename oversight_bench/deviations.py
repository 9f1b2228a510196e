"""Which settings of a run differ from the paper's main setting, in words.

One function, `deviations(config)`, computes them from a run config (a `RunConfig` or the dict a
run directory's config.json holds). Runs write the list into config.json, the end-of-run summary
prints it, and `report` / `leaderboard` print it at their head, so a number is never read as the
paper's when its run was set up differently (e.g. the CPU-sized main job).

The paper's values (arXiv 2407.04622v2): 3 rounds and simultaneous turns (§3.2.2), debaters
best-of-4 (§4.1), judges 0-shot predict without debiasing (§4.1), both answer orders (App. D),
150 words asked for and not cut (App. H), 128 questions per task on nine tasks (§1, App. F), Elo
fitted without a prior (App. E). Besides the options, a run declares what the data decided: which
of the nine tasks it ran, each dataset substitution its task files name (with the loaders' counts:
`LoadResult.deviations`, stored as `data_substitutions`), and how invalid judge answers are counted.
"""

from __future__ import annotations

from typing import Any

from oversight_bench.models import judge_of_record
from oversight_bench.protocol_options import NO_PAPER_VALUE, OUTSIDE_PAPER, all_options_model, option_meta


def paper_options() -> dict[str, Any]:
    """Option -> the paper's value, read off the installed protocols' option models (`CommonOptions`
    and each protocol's own `Options`): `NO_PAPER_VALUE` where the paper sets none (token caps),
    `OUTSIDE_PAPER` for an option the paper has no counterpart of (a protocol's own, beyond the paper)."""
    return {name: option_meta(field)["paper"] for name, field in all_options_model().model_fields.items()}


def __getattr__(name: str) -> Any:
    """`PAPER_OPTIONS`: `paper_options()` of the installed protocols, read when asked for (the
    registry loads the protocols, which importing this module must not)."""
    if name == "PAPER_OPTIONS":
        return paper_options()
    raise AttributeError(name)


PAPER_QUESTIONS_PER_TASK = 128
_GROUPS = ("all", "extractive", "closed", "multimodal")
#: the Elo fit's defaults, owned here so `config.EloConfig` (which may not import `analysis`) and
#: `analysis.elo` share them: App. E's scale and bootstrap seeds, and the virtual drawn games per
#: pair of our fit (App. E fits without a prior)
ELO_SCALE = 500.0
ELO_BOOTSTRAP = 500
ELO_PRIOR_GAMES = 1.0

#: a label for one value of an option, where it reads better than the option's own label
_VALUE_LABELS = {
    "judge_mode=probs": "judge answer read from its answer-token probabilities, no text generated (paper: predict, the written answer)",
}
#: how a run stored before thinking and argument had their own budgets declares its single cap
_LEGACY_AGENT_CAP = "agent output cap {v} tokens for thinking and argument together, no forced argument (paper: no cap)"


#: the one option besides the judge's that a run without agents (QA) uses: which order its questions show
_NO_AGENT_KEEPS = ("answer_order",)


def option_deviations(opts: dict[str, Any], *, kind: str | None = None, judge_only: bool = False,
                      no_agent: bool = False) -> list[str]:
    """Each option in `opts` whose value is not the paper's, worded by the option's own label; an
    option the paper leaves unset (token caps) is declared at any value. Options a stored run does
    not hold (written before they existed) are not guessed. `judge_only`: the transcripts were
    imported (made by others), so only the options that shape the judge's requests are this run's.
    `no_agent`: the jobs had no agent (QA), so only the judge's options and the answer order were used
    (an agent budget no job spent is no deviation of theirs)."""
    out: list[str] = []
    fields = all_options_model().model_fields
    paper = paper_options()
    if kind == "crossplay":  # App. E: one-round debates; best-of-N is per player, the order per game
        paper["rounds"] = 1
        for key in ("best_of_n", "answer_order"):
            paper.pop(key)
    for key, paper_value in paper.items():
        meta = option_meta(fields[key]) if key in fields else {"judge": False, "label": ""}
        if key not in opts or (judge_only and not meta["judge"]):
            continue
        if no_agent and not meta["judge"] and key not in _NO_AGENT_KEEPS:
            continue
        value = opts[key]
        if value == paper_value and paper_value not in (NO_PAPER_VALUE, OUTSIDE_PAPER):
            continue
        label = _VALUE_LABELS.get(f"{key}={value}") or meta["label"] or f"{key}={{v}}"
        line = label.format(v=value, p=paper_value)
        out.append(line if paper_value != OUTSIDE_PAPER or OUTSIDE_PAPER in line else f"{line} ({OUTSIDE_PAPER})")
    for key in opts:  # an option of a protocol not installed here: its run's config.json said more
        if key not in fields and key != "agent_max_tokens" and not judge_only and not no_agent:
            out.append(f"{key}={opts[key]} ({OUTSIDE_PAPER}: an option of a protocol not installed here)")
    if "agent_max_tokens" in opts and not no_agent:
        out.append(_LEGACY_AGENT_CAP.format(v=opts["agent_max_tokens"]))
    return out


def protocol_deviations(protocols: Any) -> list[str]:
    """A line for each of a run's protocols that is not the paper's (`Protocol.outside_paper`)."""
    from oversight_bench.protocol import registered_protocols

    names = [n.strip() for n in protocols.split(",")] if isinstance(protocols, str) else list(protocols or [])
    known = registered_protocols() if names else {}
    return [f"protocol {n} is not the paper's: {known[n].outside_paper}" for n in names
            if n in known and getattr(known[n], "outside_paper", "")]


def uses_no_agent(protocols: Any) -> bool:
    """Whether every one of these protocols is installed and runs no agent (`Protocol.uses_agent`: QA)."""
    from oversight_bench.protocol import registered_protocols

    names = [n.strip() for n in protocols.split(",")] if isinstance(protocols, str) else list(protocols or [])
    known = registered_protocols() if names else {}
    return bool(names) and all(n in known and not getattr(known[n], "uses_agent", True) for n in names)


def _get(config: Any, key: str, default: Any = None) -> Any:
    if isinstance(config, dict):
        return config.get(key, default)
    return getattr(config, key, default)


def elo_prior_text(prior_games: float = ELO_PRIOR_GAMES) -> str:
    """An Elo fit's prior in words, saying where it differs from App. E's bare fit."""
    if not prior_games:
        return "none (the paper's bare fit, App. E; a perfect record diverges)"
    return (f"{prior_games:g} virtual drawn game(s) per pair of debaters that met, so a perfect record stays finite "
            f"(paper App. E: no prior; --prior-games 0 for its bare fit)")


def elo_prior_deviation(prior_games: float = ELO_PRIOR_GAMES) -> str | None:
    """The deviation line of an Elo fit's prior (None: no prior, the paper's)."""
    return f"Elo prior: {elo_prior_text(prior_games)}" if prior_games else None


def invalid_answer_deviation(kind: str | None = None) -> str:
    """How invalid (unparsed) judge answers are treated: the paper does not say (Fig. B.11 reports
    their rate), so the choice is declared."""
    line = ("accuracy is over valid judge answers; invalid (unparsed) answers are counted separately, not scored "
            "as wrong (paper: not stated; Fig. B.11 reports invalid rates)")
    return line + ("; a cross-play game with an invalid verdict is left out of the Elo fit" if kind == "crossplay" else "")


def paper_tasks(include_paths: list[str] = ()) -> tuple[dict[str, str], dict[str, str]]:
    """What the task files declare (`paper:` in a task YAML): the paper's tasks with their types, in
    its order, and every task that is or stands for one (another reading: `gpqa_full` for `gpqa`)
    with the paper task it stands for. The registered tasks and those of `include_paths`."""
    from oversight_bench.errors import BenchError
    from oversight_bench.tasks import available_tasks

    try:
        tasks = available_tasks(list(include_paths))
    except BenchError:  # a stored run's include path that is gone: the registered tasks still say
        tasks = available_tasks()
    own = sorted((t for t in tasks.values() if getattr(t, "paper_order", None) is not None and t.paper_task == t.name),
                 key=lambda t: t.paper_order)
    stands_for = {t.name: t.paper_task for t in tasks.values() if getattr(t, "paper_task", None)}
    return {t.name: t.task_type for t in own}, stands_for


def _include_paths(config: Any) -> list[str]:
    paths = _get(config, "include_path") or []
    return [paths] if isinstance(paths, str) else list(paths)


def _task_names(config: Any, paper_types: dict[str, str]) -> list[str]:
    """The run's tasks by name: as resolved when its questions loaded (`task_types`), else as
    configured, a group standing for the paper's tasks of that type."""
    resolved = _get(config, "task_types")
    if isinstance(resolved, dict) and resolved:
        return list(resolved)
    tasks = _get(config, "tasks") or []
    if isinstance(tasks, str):
        tasks = [t.strip() for t in tasks.split(",") if t.strip()]
    names: list[str] = []
    for t in tasks:
        group = [n for n, ty in paper_types.items() if t == "all" or ty == t] if t in _GROUPS else [t]
        names += [n for n in group if n not in names]
    return names


def task_deviations(config: Any) -> list[str]:
    """The paper's tasks a run leaves out, those it adds, and each substituted dataset (as its task
    file words it, with counts), in the run's task order."""
    paper_types, stands_for = paper_tasks(_include_paths(config))
    names = _task_names(config, paper_types)
    out: list[str] = []
    covered = [n for n in paper_types if n in {stands_for.get(t, t) for t in names}]
    if names and len(covered) < len(paper_types):
        out.append(f"{len(covered)} of the paper's {len(paper_types)} tasks ({', '.join(covered) or 'none'})")
    extra = [t for t in names if t not in stands_for]
    if extra:
        out.append(f"tasks not in the paper: {', '.join(extra)}")
    subs = _get(config, "data_substitutions")
    if subs is None and isinstance(_get(config, "source_config"), dict):  # a re-judged run: its source's data
        subs = _get(config, "source_config").get("data_substitutions")
    for task, lines in (subs or {}).items():
        out += [f"{task} data: {line}" for line in lines]
    return out


def imported_source(config: Any) -> dict[str, Any] | None:
    """The config of the import a re-judged run's transcripts come from, however many re-judgings deep
    (`judge --from` a suite's re-judging, e.g. `--as verified_evidence`: its source's source); None
    when its transcripts were made here."""
    c, depth = _get(config, "source_config"), 0
    while isinstance(c, dict) and depth < 32:  # bounded: a crafted config may nest without end
        if "import" in c:
            return c
        c, depth = c.get("source_config"), depth + 1
    return None


def deviations(config: Any) -> list[str]:
    """Each setting of `config` that differs from the paper's, as "what (paper value)"; [] when none.

    Reads judge debiasing from `judge_debias`, or from a judge spec/name carrying `debias=...`
    (a RunConfig's spec, or a store written before `judge_debias` existed)."""
    opts = _get(config, "options") or {}
    if not isinstance(opts, dict):
        opts = opts.model_dump(mode="json")
    source = imported_source(config)
    # transcripts imported from others (a suite): only the judge's own settings are this run's
    imported = source is not None
    out = option_deviations(opts, kind=_get(config, "kind"), judge_only=imported,
                            no_agent=uses_no_agent(_get(config, "protocols")))
    out += protocol_deviations(_get(config, "protocols"))
    if imported:  # how the source made the transcripts, as its import found it
        out += list((source["import"] or {}).get("differences") or [])
    judge = _get(config, "judge")
    if isinstance(judge, str):
        _, debias = judge_of_record(judge, _get(config, "judge_debias"))
        if debias:
            out.append("judge debiased: both orders, averaged probabilities (paper: plain)")
    limit = _get(config, "limit")
    if limit is None and isinstance(_get(config, "source_config"), dict):  # a re-judged run: its source's
        limit = _get(config, "source_config").get("limit")
    if limit is not None and limit != PAPER_QUESTIONS_PER_TASK:
        out.append(f"limit {limit} questions/task (paper {PAPER_QUESTIONS_PER_TASK})")
    out += [] if imported else task_deviations(config)
    if _get(config, "kind") == "crossplay":  # its games are fitted by `elo`, with our default prior
        out.append(elo_prior_deviation())
    out.append(invalid_answer_deviation(_get(config, "kind")))
    return out


def recorded_deviations(config: dict[str, Any], protocol: str | None = None) -> list[str]:
    """A stored run's settings that differ from the paper's: as its config.json recorded them, or
    computed for a run written before they were recorded; imported transcripts declare what their
    importer found (an import written before that declares nothing). `protocol`: the lines that
    apply to that protocol's jobs only: one that runs no agent (QA) used no agent option, so a
    mixed run's agent budgets are not its deviations."""
    if "deviations" in config:
        out = list(config["deviations"])
    elif "import" in config:  # transcripts and verdicts made by others (a suite's source), not by our settings
        return []
    else:
        out = deviations(config) if config.get("kind") in (None, "run", "judge", "crossplay") else []
    opts = config.get("options")
    if protocol is not None and isinstance(opts, dict) and uses_no_agent([protocol]):
        unused = set(option_deviations(opts, kind=config.get("kind"))) - set(option_deviations(opts, kind=config.get("kind"),
                                                                                                 no_agent=True))
        out = [d for d in out if d not in unused]
    return out
