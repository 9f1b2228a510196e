"""The end of a run: its accuracy and transcript-quality rows (`summarize`) and the table printed from
them (`print_summary`); `report` prints its main table with the same columns (`accuracy_table`)."""

from __future__ import annotations

from typing import Any, Callable

from rich.console import Console
from rich.table import Table

from oversight_bench.analysis import stats
from oversight_bench.render.numbers import pct
from oversight_bench.redact import redact_text

#: what every accuracy table's caption says its columns are
CAPTION = ("questions: those with a valid answer; accuracy: each question's valid answers averaged, then the mean "
           "over questions with the paper's 95% CI ([–]: one question, no interval); invalid: unparsed answers of "
           "all answers; invalid = wrong: accuracy with invalid answers counted wrong; % of agent turns without an "
           "argument, forced (thinking budget spent) or cut (argument budget spent), – unknown; u-quote args: % of "
           "arguments mostly unverified quotes; ans. 1: the judge's share of answer 1 (plain 1: a debiased judge's, "
           "each order alone); ⚑ fails the quality bar")


def accuracy_cell(m: float | None, lo: float | None, hi: float | None) -> str:
    """'62.5 [41.2, 83.8]' (%, the paper's 95% CI; `pct`, the one rounding rule, as the row's other
    columns: 0.5625 is 56.3 in each); '[–]' where one question gives no interval."""
    if m is None:
        return "–"
    return f"{pct(m)} [–]" if lo is None else f"{pct(m)} [{pct(lo)}, {pct(hi)}]"


def _columns(rows: list[dict]) -> list[tuple[str, Callable[[dict], str]]]:
    """(header, cell of a row): questions, accuracy in % with its CI, invalid answers, accuracy with
    invalid answers counted wrong, then the transcript quality in % (the agent-turn columns only when
    some row has agent turns). A row holds its quality figures under `quality` (the end-of-run
    summary) or beside its accuracy (`report`'s rows). Two-line headers keep the table narrow."""
    def quality(r: dict) -> dict:
        return r.get("quality") or r

    def q(key):
        return lambda r: pct(quality(r).get(key)) if quality(r).get("n_agent_turns") else ""

    cols = [("questions", lambda r: str(r["n"])),
            ("accuracy %\n[95% CI]", lambda r: accuracy_cell(r["accuracy"], r.get("ci_low"), r.get("ci_high"))),
            ("invalid\nanswers", lambda r: f"{r['n_invalid']}/{r['n_records']}"),
            ("invalid\n= wrong %", lambda r: pct(r.get("accuracy_invalid_wrong")))]
    if any(quality(r).get("n_agent_turns") for r in rows):
        cols += [("no\narg %", q("argumentless_rate")), ("forced\n%", q("forced_rate")), ("cut\n%", q("cut_rate")),
                 ("u-quote\nargs %", q("unverified_args_rate"))]
    cols += [("ans.\n1 %", lambda r: pct(quality(r).get("answer1_share")))]
    if any(quality(r).get("n_plain") for r in rows):  # a debiased judge: its plain per-order share beside it
        cols += [("plain\n1 %", lambda r: pct(quality(r).get("plain_answer1_share")) if quality(r).get("n_plain") else "")]
    cols += [
             ("⚑", lambda r: "⚑" if r.get("flagged") else "")]
    return cols


def console() -> Console:
    out = Console()
    if not out.is_terminal:  # a log or a pipe: rich's 80 columns would cut the numbers; the table needs ~115
        out = Console(width=max(out.width, 120))
    return out


def accuracy_table(rows: list[dict], keys: list[tuple[str, str]], title: str, caption: str = CAPTION) -> Table:
    """One row per cell: its identifying `keys` ((header, row key)), then `_columns`."""
    table = Table(title=title, caption=caption, collapse_padding=True)
    cols = _columns(rows)
    for head, _ in keys:
        table.add_column(head, no_wrap=True)
    for head, _ in cols:
        table.add_column(head, justify="right", no_wrap=True)
    for r in rows:
        table.add_row(*(str(r.get(k) if r.get(k) is not None else "–") for _, k in keys), *(cell(r) for _, cell in cols))
    return table


def print_flags(out: Console, rows: list[dict], keys: list[str]) -> None:
    """The reasons of each flagged row, one line each."""
    for r in rows:
        if r.get("flagged"):
            out.print("⚑ " + " · ".join(str(r.get(k)) for k in keys) + ": " + "; ".join(r["flagged"]),
                      markup=False, soft_wrap=True)


def print_summary(outcome, next_command: str | None = None) -> None:
    """The accuracy table, flags, deviations, skipped rows, failures and counts; then `next_command`,
    the command to run next (none when jobs failed: the error line says to run the same one again)."""
    out = console()
    s = outcome.stats
    judges = sorted({r["judge"] for r in outcome.summary})
    out.print(accuracy_table(outcome.summary, [("protocol", "protocol"), ("task", "task")],
                             f"judge accuracy on valid answers, per question — {outcome.output}",
                             f"judge: {', '.join(judges)}. {CAPTION}"))
    print_flags(out, outcome.summary, ["protocol", "task"])
    devs = getattr(outcome, "deviations", None) or []
    out.print("deviations from the paper: " + "; ".join(devs) if devs else "settings: the paper's (no deviations)",
              markup=False, soft_wrap=True)
    for sk in outcome.skipped:
        if sk.get("protocol"):  # a protocol that cannot apply to a task's questions (`plans.left_out`)
            out.print(f"left out {sk['protocol']} on {sk['task']} ({sk['count']} question(s)): {sk['reason']}",
                      markup=False, soft_wrap=True)
        elif sk["task"] == "-":  # a re-judging's transcripts left out (`plans.JudgePlan`), not a task's rows
            out.print(f"left out {sk['count']} transcript(s): {sk['reason']}", markup=False, soft_wrap=True)
        else:
            out.print(f"skipped {sk['count']} row(s) of {sk['task']}: {sk['reason']}")
    for reason, count in sorted(getattr(s, "failures", {}).items(), key=lambda kv: -kv[1]):
        out.print(f"failed {count} job(s): {redact_text(reason)}", markup=False, soft_wrap=True)
    for name, t in sorted((getattr(s, "traffic", None) or {}).items()):
        out.print(f"{redact_text(name)}: {t.get('sent', 0)} requests sent, {t.get('resent', 0)} re-sent; settled at "
                  f"{t.get('settled_concurrency')} in flight (ceiling {t.get('ceiling')}, peak {t.get('peak_in_flight')})",
                  markup=False, soft_wrap=True)
    out.print(f"jobs: {s.jobs_done} done, {s.jobs_skipped} already stored, {s.jobs_failed} failed; "
              f"model calls: {s.calls}, cache hits: {s.cache_hits}, invalid answers: {s.invalid}")
    if next_command and not s.jobs_failed:
        out.print(f"next: {next_command}   # every table, paired tests between protocols, figures",
                  markup=False, soft_wrap=True)


def summarize(store: Store, judge: str | None = None) -> list[dict[str, Any]]:
    """Accuracy per judge x protocol x task (the end-of-run table), computed as `report` computes it
    (`stats.per_question` then `stats.mean_ci`): `n` questions with a valid answer, the mean over them
    of each question's accuracy over its valid answers with the paper's 95% CI, the answers
    (`n_records`) and invalid ones (`n_invalid`); beside it the accuracy with invalid answers counted
    as wrong and the transcript quality (`analysis.quality`: forced, cut, argument-less agent turns,
    answer-1 share, flags). Streams the records, keeping one running sum per question, so the table
    does not grow the run's memory with its size."""
    from oversight_bench.analysis.quality import Quality
    from oversight_bench.render.quality_text import worded
    from oversight_bench.analysis.rows import DecisionRow
    from oversight_bench.rundir.records import Turn

    groups: dict[tuple, Quality] = {}
    for r in store.records():  # one pass over turns and decisions
        if judge and r.judge != judge:
            continue
        q = groups.setdefault((r.judge, r.protocol, r.task), Quality())
        if isinstance(r, Turn):
            q.add_turn(r)
        else:
            q.add_decision(DecisionRow.of(r))
    rows = []
    for (j, p, t), q in sorted(groups.items()):
        fig = worded(q.figures())  # its flags in words, as the table and the results file print them
        per_question = [c / v for c, v, _ in q.pq.values() if v]
        m, lo, hi = stats.mean_ci(per_question)
        rows.append({"judge": j, "protocol": p, "task": t, "n": len(per_question), "n_records": fig["n_records"],
                     "n_invalid": fig["n_invalid"], "invalid_rate": fig["invalid_rate"], "accuracy": m,
                     "ci_low": lo, "ci_high": hi, "accuracy_invalid_wrong": fig["accuracy_invalid_wrong"],
                     "quality": fig, "flagged": fig["flagged"]})
    return rows
