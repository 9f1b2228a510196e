"""Which settings of a run differ from the paper's main setting, in words.

One function, `deviations(config)`, computes them from a run config (a `RunConfig` or the dict a
run directory's config.json holds). Runs write the list into config.json, the end-of-run summary
prints it, and `report` / `leaderboard` print it at their head, so a number is never read as the
paper's when its run was set up differently (e.g. the CPU-sized main job).

The paper's values (arXiv 2407.04622v2): 3 rounds and simultaneous turns (§3.2.2), debaters
best-of-4 (§4.1), judges 0-shot predict without debiasing (§4.1), both answer orders (App. D),
150 words asked for and not cut (App. H), 128 questions per task on nine tasks (§1, App. F).
"""

from __future__ import annotations

from typing import Any

from oversight_bench.models import judge_of_record
from oversight_bench.protocol import ProtocolOptions

def paper_options() -> dict[str, Any]:
    """Option -> the paper's value, read off the option model (`ProtocolOptions`): every option
    carries one, or `NO_PAPER_VALUE` where the paper sets none (token caps)."""
    return {name: ProtocolOptions.paper_value(name) for name in ProtocolOptions.model_fields}


#: the options whose value is the paper's (or that the paper leaves unset): kept for readers
PAPER_OPTIONS: dict[str, Any] = paper_options()
PAPER_QUESTIONS_PER_TASK = 128
PAPER_TASKS = ("quality", "boolq", "gpqa_extractive", "mmlu", "gsm8kqa", "prontoqa", "truthfulqa", "gpqa", "mmmu",
               # the other readings of GPQA's "full dataset" and of PrOntoQA's negation (configs/paper/tasks)
               "gpqa_full", "prontoqa_negate_all")

#: a label for one value of an option, where it reads better than the option's own label
_VALUE_LABELS = {
    "judge_mode=probs": "judge answer read from its answer-token probabilities, no text generated (paper: predict, the written answer)",
}
#: how a run stored before thinking and argument had their own budgets declares its single cap
_LEGACY_AGENT_CAP = "agent output cap {v} tokens for thinking and argument together, no forced argument (paper: no cap)"


def option_deviations(opts: dict[str, Any], *, kind: str | None = None) -> list[str]:
    """Each option in `opts` whose value is not the paper's, worded by the option's own label; an
    option the paper leaves unset (token caps) is declared at any value. Options a stored run does
    not hold (written before they existed) are not guessed."""
    out: list[str] = []
    paper = paper_options()
    if kind == "crossplay":  # App. E: one-round debates; best-of-N is per player, the order per game
        paper["rounds"] = 1
        for key in ("best_of_n", "answer_order"):
            paper.pop(key)
    for key, paper_value in paper.items():
        if key not in opts:
            continue
        value = opts[key]
        if value == paper_value:
            continue
        label = _VALUE_LABELS.get(f"{key}={value}") or ProtocolOptions.model_fields[key].json_schema_extra["label"]
        out.append(label.format(v=value, p=paper_value))
    if "agent_max_tokens" in opts:
        out.append(_LEGACY_AGENT_CAP.format(v=opts["agent_max_tokens"]))
    return out


def _get(config: Any, key: str, default: Any = None) -> Any:
    if isinstance(config, dict):
        return config.get(key, default)
    return getattr(config, key, default)


def deviations(config: Any) -> list[str]:
    """Each setting of `config` that differs from the paper's, as "what (paper value)"; [] when none.

    Reads judge debiasing from `judge_debias`, or from a judge spec/name carrying `debias=...`
    (a RunConfig's spec, or a store written before `judge_debias` existed)."""
    opts = _get(config, "options") or {}
    if not isinstance(opts, dict):
        opts = opts.model_dump(mode="json")
    out = option_deviations(opts, kind=_get(config, "kind"))
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
    tasks = _get(config, "tasks") or []
    if isinstance(tasks, str):
        tasks = [t.strip() for t in tasks.split(",") if t.strip()]
    extra = [t for t in tasks if t not in PAPER_TASKS and t not in ("all", "extractive", "closed", "multimodal")]
    if extra:
        out.append(f"tasks not in the paper: {', '.join(extra)}")
    return out


def recorded_deviations(config: dict[str, Any]) -> list[str]:
    """A stored run's settings that differ from the paper's: as its config.json recorded them, or
    computed for a run written before they were recorded; imported transcripts have none."""
    if "deviations" in config:
        return list(config["deviations"])
    return deviations(config) if config.get("kind") in (None, "run", "judge", "crossplay") else []
