"""What an import declares about its transcripts: how the source made them, as it reports or its
files show (`import.source_settings`, `UNKNOWN` where neither says), the differences from the
paper's setting (the import's deviations), its counts, and the run config that carries them."""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from pathlib import Path
from typing import Any

from oversight_bench import __version__
from oversight_bench.api import Record, is_argument, provenance, run_options_model

UNKNOWN = "unknown"


def base_config(kind: str, source: Path, judge: str, agent: str, protocols: list[str], task: str, extra: dict,
                settings: dict[str, Any], differences: list[str]) -> dict:
    """An import's config. None of our options made these transcripts, so `options` holds none (a
    re-judge takes its judge's options from its own defaults and overrides); `import.source_settings`
    says how the source made them, as the source reports it or as its files show (`UNKNOWN` where
    neither says), and `import.differences` what differs from the paper's setting, which the import
    declares as its deviations (`ImportPlan.deviations`)."""
    run_options_model(protocols)  # the protocols are installed
    return {
        "judge": judge, "agent": agent, "tasks": [task], "task_types": ["extractive"], "protocols": protocols, "seed": None,
        "options": {},
        **provenance(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "import": {"kind": kind, "source": str(source), "oversight_bench": __version__, **extra,
                   "source_settings": settings, "differences": differences},
    }


def _spread(values: list[int]) -> str:
    """A count's range and median, in words ("1–7, median 3")."""
    v = sorted(values)
    return f"{v[0]}" if v[0] == v[-1] else f"{v[0]}–{v[-1]}, median {v[len(v) // 2]}"


def nyu_settings(records: list[Record]) -> tuple[dict[str, Any], list[str]]:
    """How Michael et al. 2023 made the imported rooms, read off the rooms themselves (their paper:
    the live judge chose when to end a debate and could ask questions between rounds), and the
    differences from the paper's setting that follow."""
    debates = [r for r in records if r.job.protocol == "debate" and not r.decision["extra"].get("mirrored")]
    rounds = [max((t["round"] for t in r.turns if t["role"] != "judge"), default=0) for r in records
              if not r.decision["extra"].get("mirrored")]
    styles = Counter(t["extra"].get("turn_style") for r in debates for t in r.turns if t["role"] == "debater")
    asked = sum(1 for r in debates if any(t["role"] == "judge" for t in r.turns))
    second = sum(1 for r in debates if r.job.answer_order == "correct_second")
    by_agent = Counter(r.agent for r in records if not r.decision["extra"].get("mirrored"))
    settings = {
        "rounds": f"as each live judge chose: {_spread(rounds)}",
        "turn_style": ", ".join(f"{k} ({v} speeches)" for k, v in sorted(styles.items())),
        "debaters": ", ".join(f"{k} ({v} rooms)" for k, v in sorted(by_agent.items())),
        "judge": f"a live human judge who could ask questions between rounds (in {asked} of {len(debates)} debates "
                 "it did) and ended the debate; its verdict is its final belief",
        "answer_order": f"one order per room, as the source shows it (the correct answer second in {second} of "
                        f"{len(debates)} debates)",
        "best_of_n": UNKNOWN, "word_limit": UNKNOWN, "thinking_max_tokens": UNKNOWN, "argument_max_tokens": UNKNOWN,
        "quotes": "spans of the story picked in the debate interface (verified by construction)",
    }
    differences = [
        "source transcripts (Michael et al. 2023): debaters are people and GPT-4, not the paper's agents",
        "source transcripts (Michael et al. 2023): interactive debate; the live human judge asked questions between "
        f"rounds ({asked} of {len(debates)} debates) and ended it when it chose (paper: a judge that reads the finished "
        "transcript and asks nothing)",
        f"source transcripts (Michael et al. 2023): rounds {settings['rounds']} (paper: 3)",
        f"source transcripts (Michael et al. 2023): turn style {settings['turn_style']} (paper: simultaneous)",
        f"source transcripts (Michael et al. 2023): {settings['answer_order']} (paper: both orders)",
        "source transcripts (Michael et al. 2023): best-of-N, word limit and token budgets unknown",
    ]
    return settings, differences


def nyu_counts(records: list[Record]) -> dict[str, Any]:
    """Rooms, protocols, human/AI debaters and judges, and judge accuracy, of imported jobs."""
    c: dict[str, Any] = {"rooms": len(records)}
    c["by_protocol"] = dict(Counter(r.job.protocol for r in records))
    c["by_protocol_agent"] = dict(Counter(f"{r.job.protocol}/{r.agent}" for r in records))
    c["human_judges"] = len({r.decision["extra"]["judge_id"] for r in records})
    c["human_debaters"] = len({v for r in records for v in r.decision["extra"]["debaters"].values() if v != "GPT-4"})
    acc: dict[str, list] = {}
    for r in records:
        if r.decision["correct"] is not None:
            acc.setdefault(f"{r.job.protocol}/{r.agent}", []).append(r.decision["correct"])
    c["judge_accuracy_by_room"] = {k: sum(v) / len(v) for k, v in sorted(acc.items())}
    return c


def llm_debate_settings(records: list[Record], agent: str, reported: dict[str, Any], both_orders: bool
                        ) -> tuple[dict[str, Any], list[str]]:
    """How an llm_debate CSV's debates were made: what its rows show (rounds, turn style from the
    rollout type, the answer order), what its authors report (`reported`, e.g. Khan et al.'s
    best-of-4), `UNKNOWN` for the rest; and the differences from the paper's setting."""
    own = [r for r in records if not r.decision["extra"].get("mirrored")]
    rounds = [max(t["round"] for t in r.turns) for r in own]
    styles = Counter(t["extra"].get("turn_style") for r in own for t in r.turns if is_argument(t))
    first = sum(1 for r in own if r.job.answer_order == "correct_first")
    settings = {"debaters": agent, "rounds": _spread(rounds), "turn_style": ", ".join(sorted(k for k in styles if k)),
                "answer_order": f"correct answer first in {first} of {len(own)} debates as published"
                                + ("; each debate also mirrored, unjudged, with the names swapped" if both_orders else ""),
                "best_of_n": UNKNOWN, "word_limit": UNKNOWN, "thinking_max_tokens": UNKNOWN,
                "argument_max_tokens": UNKNOWN, "judge": "none recorded" if not any(r.decision["answer"] for r in own)
                else "the CSV's judge column", **reported}
    who = reported.get("source", "the imported CSV")
    differences = [f"source transcripts ({who}): debaters {agent}, with their authors' prompts (not the paper's App. H)"]
    if settings["rounds"] != "3":
        differences.append(f"source transcripts ({who}): rounds {settings['rounds']} (paper: 3)")
    if settings["turn_style"] != "simultaneous":
        differences.append(f"source transcripts ({who}): turn style {settings['turn_style'] or UNKNOWN} (paper: simultaneous)")
    if settings["best_of_n"] != 4:
        differences.append(f"source transcripts ({who}): best-of-N {settings['best_of_n']} (paper: 4)")
    unknown = [k for k in ("word_limit", "thinking_max_tokens", "argument_max_tokens") if settings[k] == UNKNOWN]
    if unknown:
        differences.append(f"source transcripts ({who}): {', '.join(unknown)} unknown")
    return settings, differences


#: what Khan et al. 2024 report of the debates in their T_H file (the `khan-2024` suite's source)
KHAN_2024_REPORTED = {"source": "Khan et al. 2024", "best_of_n": 4}
