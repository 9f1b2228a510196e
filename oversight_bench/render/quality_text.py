"""Transcript quality's figures (`analysis.quality`) and the stance check's (`analysis.stance`,
`publish.stance`) as the one-line text the commands, the report and the leaderboard print beside an
accuracy."""

from __future__ import annotations

from typing import Any

from oversight_bench.render.numbers import decimal_round, pct_sign


def arguments_text(fig: dict[str, Any]) -> str:
    """One short line: argument-less, forced and cut shares of agent turns, mean words ('' without agent turns)."""
    if not fig.get("n_agent_turns"):
        return ""
    words = "–" if fig["mean_argument_words"] is None else decimal_round(fig["mean_argument_words"], 0)
    unverified = f" · unverified-quote args {pct_sign(fig['unverified_args_rate'])}" if "unverified_args_rate" in fig else ""
    return (f"no-arg {pct_sign(fig['argumentless_rate'])} · forced {pct_sign(fig['forced_rate'])} · "
            f"cut {pct_sign(fig['cut_rate'])}{unverified} · {words} words")


def answer1_text(fig: dict[str, Any]) -> str:
    """'answer 1 in 51.2% of valid answers' and, for a debiased judge, its plain per-order share beside it."""
    text = f"answer 1 in {pct_sign(fig.get('answer1_share'))} of valid answers"
    if fig.get("n_plain"):
        text += f" (debiased; plain, each order alone: {pct_sign(fig['plain_answer1_share'])} of {fig['n_plain']} orders)"
    return text


def stance_text(fig: dict[str, Any], summary: dict[str, Any]) -> str:
    """'other side or conceding 2/16 (12.5%; checker accuracy 91.7% of 24 on khan-2024 …)'."""
    acc = summary.get("checker_accuracy")
    acc_text = (f"checker accuracy {pct_sign(acc)} of {summary['n_calibration']} on {summary['calibration']}"
                if acc is not None else f"checker accuracy not measured: calibration {summary['calibration']}")
    if not fig.get("n_stance") and not fig.get("n_stance_unparsed"):
        return ""
    off = fig["n_other_side"] + fig["n_concede"]
    unparsed = f", {fig['n_stance_unparsed']} unparsed" if fig["n_stance_unparsed"] else ""
    return (f"other side or conceding {off}/{fig['n_stance']} ({pct_sign(fig['stance_off_rate'])}{unparsed}; "
            f"{acc_text})")
