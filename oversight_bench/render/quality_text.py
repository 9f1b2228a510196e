"""Transcript quality's figures (`analysis.quality`) and the stance check's (`analysis.stance`,
`publish.stance`) as the one-line text the commands, the report and the leaderboard print beside an
accuracy."""

from __future__ import annotations

from typing import Any, Iterable

from oversight_bench.analysis.quality import (CUT_BAR, FORCED_BAR, POSITION_ALPHA, POSITION_LINE, UNVERIFIED_BAR,
                                              UNVERIFIED_WORDS, Flag)
from oversight_bench.render.numbers import decimal_round, pct_sign

#: why a carried cell of an argued protocol is flagged when its build recorded no transcript quality
UNMEASURED = "transcript quality not measured (carried from a build that did not record it)"


def flag_text(flag: Flag) -> str:
    """One reason a cell fails the quality bar, in words (as tables, pages and results files print it)."""
    bar = f"{flag.bar:.0%}" if flag.bar is not None else ""
    return {"argumentless": lambda: f"argument-less agent turns {flag.k}/{flag.n}",
            "cut": lambda: f"cut {flag.k}/{flag.n} agent turns (> {bar})",
            "forced": lambda: f"forced {flag.k}/{flag.n} agent turns (> {bar})",
            "unverified": lambda: f"mostly unverified quotes in {flag.k}/{flag.n} arguments (> {bar})",
            "position": lambda: f"answers {flag.side} in {flag.k}/{flag.n}",
            "plain_position": lambda: (f"debiased, but its plain answer (each order alone) is {flag.side} in "
                                       f"{flag.k}/{flag.n} orders"),
            "unmeasured": lambda: UNMEASURED,
            "one_order_each": lambda: (f"every one of its {flag.n} questions right in exactly one of its two answer "
                                       "orders (a position picker)")}[flag.code]()


def flag_texts(flags: Iterable[Flag | str]) -> list[str]:
    """Each flag in words; a reason already in words (a carried build's, read from its results.json) as it is."""
    return [f if isinstance(f, str) else flag_text(f) for f in flags or ()]


def worded(fig: dict[str, Any]) -> dict[str, Any]:
    """`fig` (a row or cell holding `flagged`, quality figures among them) with its flags in words, in
    place, so the key keeps its place in the files written from it; `fig` is returned."""
    if "flagged" in fig:
        fig["flagged"] = flag_texts(fig["flagged"])
    return fig


def bar_text() -> str:
    """The quality bar in words, as tables and pages state it."""
    return (f"flagged: any argument-less agent turn, > {CUT_BAR:.0%} of agent turns cut, > {FORCED_BAR:.0%} forced, "
            f"> {UNVERIFIED_BAR:.0%} of arguments mostly (> {UNVERIFIED_WORDS:.0%} of words) unverified quotes, or a "
            f"position picker: ≥ {POSITION_LINE:.0%} of valid answers on one position (at least half settled by "
            f"position alone) and a binomial test against 50% p < {POSITION_ALPHA:g}; a debiased judge's plain "
            "per-order answers by the same rule")


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
