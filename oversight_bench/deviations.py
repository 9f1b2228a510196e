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

#: option -> the paper's value (ProtocolOptions defaults are these; tested to stay equal)
PAPER_OPTIONS: dict[str, Any] = {
    "rounds": 3,
    "turn_style": "simultaneous",
    "best_of_n": 4,
    "judge_mode": "predict",
    "few_shot": 0,
    "answer_order": "both",
    "word_limit": 150,
    "truncate_words": False,
    "agent_temperature": 1.0,
    "judge_temperature": 0.0,
}
PAPER_QUESTIONS_PER_TASK = 128
PAPER_TASKS = ("quality", "boolq", "gpqa_extractive", "mmlu", "gsm8kqa", "prontoqa", "truthfulqa", "gpqa", "mmmu",
               # the other readings of GPQA's "full dataset" and of PrOntoQA's negation (configs/paper/tasks)
               "gpqa_full", "prontoqa_negate_all")

_LABELS = {
    "rounds": "rounds {v} (paper {p})",
    "turn_style": "turn style {v} (paper: simultaneous)",
    "best_of_n": "best-of-N {v} (paper 4)",
    "judge_mode": "judge mode {v} (paper: predict)",
    "judge_mode=probs": "judge answer read from its answer-token probabilities, no text generated (paper: predict, the written answer)",
    "few_shot": "judge {v}-shot (paper 0-shot)",
    "answer_order": "answer order {v} (paper: both)",
    "word_limit": "word limit {v} (paper 150)",
    "truncate_words": "arguments cut at the word limit (paper: asked, not cut)",
    "agent_temperature": "agent temperature {v} (paper: API default, 1.0)",
    "judge_temperature": "judge temperature {v} (preset 0.0, see configs/paper/README.md)",
}


def _get(config: Any, key: str, default: Any = None) -> Any:
    if isinstance(config, dict):
        return config.get(key, default)
    return getattr(config, key, default)


def deviations(config: Any) -> list[str]:
    """Each setting of `config` that differs from the paper's, as "what (paper value)"; [] when none.

    Reads judge debiasing from `judge_debias`, or from a judge spec/name carrying `debias=...`
    (a RunConfig's spec, or a store written before `judge_debias` existed)."""
    out: list[str] = []
    opts = _get(config, "options") or {}
    if not isinstance(opts, dict):
        opts = opts.model_dump(mode="json")
    paper_options = dict(PAPER_OPTIONS)
    if _get(config, "kind") == "crossplay":  # App. E: one-round debates; best-of-N is per player,
        paper_options["rounds"] = 1          # the order is drawn per game
        for key in ("best_of_n", "answer_order"):
            paper_options.pop(key)
    for key, paper in paper_options.items():
        if key not in opts:
            continue
        value = opts[key]
        if value != paper:
            out.append(_LABELS.get(f"{key}={value}", _LABELS[key]).format(v=value, p=paper))
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
