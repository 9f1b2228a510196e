"""The end of a run: its accuracy and transcript-quality rows (`summarize`) and the short table printed from them."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from oversight_bench.analysis.quality import pct
from oversight_bench.redact import redact_text


def _columns(rows: list[dict]) -> list[tuple[str, object]]:
    """(header, cell of a row): accuracy on valid answers and with invalid ones counted wrong, then the
    transcript quality in % (the agent-turn columns only when some protocol has agent turns; '–' where
    unknown, e.g. forced and cut in a store written before budgets were recorded). Two-line headers
    keep the table under 100 columns."""
    def acc(v):
        return "-" if v is None else f"{v:.3f}"

    def q(key):
        return lambda r: pct(r["quality"][key]) if r.get("quality") and r["quality"]["n_agent_turns"] else ""

    cols = [("n", lambda r: str(r["n"])), ("invalid", lambda r: str(r["invalid"])),
            ("accuracy", lambda r: acc(r["accuracy"])), ("invalid\n= wrong", lambda r: acc(r.get("accuracy_invalid_wrong")))]
    if any(r["quality"]["n_agent_turns"] for r in rows if r.get("quality")):
        cols += [("no\narg %", q("argumentless_rate")), ("forced\n%", q("forced_rate")), ("cut\n%", q("cut_rate"))]
    cols += [("ans.\n1 %", lambda r: pct(r["quality"]["answer1_share"]) if r.get("quality") else "–"),
             ("⚑", lambda r: "⚑" if r.get("flagged") else "")]
    return cols


def print_summary(outcome) -> None:
    console = Console()
    if not console.is_terminal:  # a log or a pipe: rich's 80 columns would cut the numbers; the table needs ~100
        console = Console(width=max(console.width, 110))
    s = outcome.stats
    judges = sorted({r["judge"] for r in outcome.summary})
    table = Table(title=f"judge accuracy on valid answers — {outcome.output}",
                  caption=f"judge: {', '.join(judges)}. % of agent turns without an argument, forced (thinking budget "
                          f"spent) or cut (argument budget spent), – unknown; ans. 1: the judge's share of answer 1; "
                          f"⚑ fails the quality bar; invalid = wrong: accuracy with invalid answers counted wrong",
                  collapse_padding=True)
    cols = _columns(outcome.summary)
    table.add_column("protocol", no_wrap=True)
    table.add_column("task", no_wrap=True)
    for head, _ in cols:
        table.add_column(head, justify="right", no_wrap=True)
    for r in outcome.summary:
        table.add_row(r["protocol"], r["task"], *(cell(r) for _, cell in cols))
    console.print(table)
    for r in outcome.summary:
        if r.get("flagged"):
            console.print(f"⚑ {r['protocol']} · {r['task']}: " + "; ".join(r["flagged"]), markup=False, soft_wrap=True)
    devs = getattr(outcome, "deviations", None) or []
    console.print("deviations from the paper: " + "; ".join(devs) if devs else "settings: the paper's (no deviations)",
                  markup=False, soft_wrap=True)
    for sk in outcome.skipped:
        console.print(f"skipped {sk['count']} row(s) of {sk['task']}: {sk['reason']}")
    for reason, count in sorted(getattr(s, "failures", {}).items(), key=lambda kv: -kv[1]):
        console.print(f"failed {count} job(s): {redact_text(reason)}", markup=False, soft_wrap=True)
    console.print(f"jobs: {s.jobs_done} done, {s.jobs_skipped} already stored, {s.jobs_failed} failed; "
                  f"model calls: {s.calls}, cache hits: {s.cache_hits}, invalid answers: {s.invalid}")


def summarize(store: Store, judge: str | None = None) -> list[dict[str, Any]]:
    """Accuracy per judge x protocol x task (the short end-of-run table), computed as `report`
    computes it (`stats.per_question` then `stats.mean_ci`): the mean over questions of each
    question's accuracy over its valid answers; beside it the accuracy with invalid answers counted
    as wrong and the transcript quality (`analysis.quality`: forced, cut, argument-less agent
    turns, answer-1 share, flags). Streams the records, keeping one running sum per question, so
    the table does not grow the run's memory with its size."""
    from oversight_bench.analysis.load import normalise_decision
    from oversight_bench.analysis.quality import Quality

    groups: dict[tuple, dict[str, Any]] = {}

    def group(r: dict[str, Any]) -> dict[str, Any]:
        return groups.setdefault((r["judge"], r["protocol"], r["task"]), {"n": 0, "invalid": 0, "q": Quality()})

    for r in store.iter_records():  # one pass over turns and decisions
        if judge and r["judge"] != judge:
            continue
        g = group(r)
        if r["kind"] == "turn":
            g["q"].add_turn(r)
            continue
        g["n"] += 1
        d = normalise_decision(r)
        g["invalid"] += d.get("answer") is None
        g["q"].add_decision(d)
    rows = []
    for (j, p, t), g in sorted(groups.items()):
        fig = g["q"].figures()
        rows.append({"judge": j, "protocol": p, "task": t, "n": g["n"], "valid": g["n"] - g["invalid"],
                     "invalid": g["invalid"], "accuracy": fig["accuracy_valid"],
                     "accuracy_invalid_wrong": fig["accuracy_invalid_wrong"], "quality": fig, "flagged": fig["flagged"]})
    return rows
