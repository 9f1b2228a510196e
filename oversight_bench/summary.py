"""The short table printed at the end of a run."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from oversight_bench.redact import redact_text


def print_summary(outcome) -> None:
    console = Console()
    s = outcome.stats
    judges = sorted({r["judge"] for r in outcome.summary})
    table = Table(title=f"judge accuracy on valid answers — {outcome.output}", caption=f"judge: {', '.join(judges)}")
    for col in ("protocol", "task", "n", "invalid", "accuracy"):
        table.add_column(col, justify="right" if col in ("n", "invalid", "accuracy") else "left", no_wrap=True)
    for r in outcome.summary:
        acc = "-" if r["accuracy"] is None else f"{r['accuracy']:.3f}"
        table.add_row(r["protocol"], r["task"], str(r["n"]), str(r["invalid"]), acc)
    console.print(table)
    devs = getattr(outcome, "deviations", None) or []
    console.print("deviations from the paper: " + "; ".join(devs) if devs else "settings: the paper's (no deviations)",
                  markup=False, soft_wrap=True)
    for sk in outcome.skipped:
        console.print(f"skipped {sk['count']} row(s) of {sk['task']}: {sk['reason']}")
    for reason, count in sorted(getattr(s, "failures", {}).items(), key=lambda kv: -kv[1]):
        console.print(f"failed {count} job(s): {redact_text(reason)}", markup=False, soft_wrap=True)
    console.print(f"jobs: {s.jobs_done} done, {s.jobs_skipped} already stored, {s.jobs_failed} failed; "
                  f"model calls: {s.calls}, cache hits: {s.cache_hits}, invalid answers: {s.invalid}")
