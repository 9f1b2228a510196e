"""`build_report(dirs, output)`: report.json, Markdown and CSV tables, PNG figures.

report.json schema (`schema` = "oversight-bench/report/v1"); every number may be null where undefined:

* `generated` (ISO time), `runs`: [{dir, judge, agent, seed, versions, created, commit, import}]
* `groups`: one row per judge × agent × protocol × task (`level` = "task") and per judge × agent ×
  protocol × task type (`level` = "task_type", `task` = null), with
  `judge, agent, protocol, task, task_type, level, n` (questions with a valid answer), `n_records`,
  `accuracy, ci_low, ci_high` (replicates of a question averaged, then a normal 95% interval across
  questions), `n_invalid, invalid_rate` (unparsed judge answers / records),
  cost: `calls_per_question, tokens_per_question, prompt_tokens_per_question,
  completion_tokens_per_question, seconds_per_question, accuracy_per_1k_tokens`,
  calibration where judge probabilities exist: `brier, ece, n_calibrated`.
* `permutation_tests`: [{judge, agent, level, task | task_type, protocol_a, protocol_b, n (shared
  questions), diff (accuracy a − b), p_value}] (two-sided, paired, 10,000 resamples).
* `open_role`: [{judge, agent, protocol, level, task | task_type, source ("open_protocol" | "derived"),
  n, accuracy, ci_low, ci_high, win_rate, win_ci_low, win_ci_high, agent_correct_rate,
  accuracy_agent_correct (+ ci, n), accuracy_agent_incorrect (+ ci, n),
  by_difficulty: {judge_qa_correct | judge_qa_incorrect: same block}}].
* `calibration`: [{judge, agent, protocol, n, brier, ece, bins: [{low, high, n, confidence, accuracy}]}].
* `compute_matched`: [{judge, agent, task, debate_accuracy, debate_calls_per_question, available,
  k, accuracy, ci_low, ci_high, reason}].
* `elo`: null, or {aggregate, by_side, truth_advantage, accuracy_by_debater} (see `elo.py`).
* `files`: names of the tables and figures written next to report.json.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import math
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from oversight_bench.analysis import cost as cost_mod
from oversight_bench.analysis import elo as elo_mod
from oversight_bench.analysis import openrole, stats
from oversight_bench.analysis.load import Run, load_runs
from oversight_bench.errors import BenchError

SCHEMA = "oversight-bench/report/v1"
PROTOCOL_ORDER = ["qa_without_article", "qa_with_article", "consultancy", "open_consultancy", "debate", "open_debate"]


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def run_provenance(run: Run) -> dict[str, Any]:
    c = run.config or {}
    return {"dir": str(run.dir), "judge": c.get("judge"), "agent": c.get("agent"), "seed": c.get("seed"),
            "versions": c.get("versions"), "created": c.get("created") or c.get("started"), "commit": c.get("commit") or (c.get("versions") or {}).get("commit"),
            "import": c.get("import"), "options": c.get("options")}


def _proto_key(p: str) -> tuple:
    return (PROTOCOL_ORDER.index(p) if p in PROTOCOL_ORDER else len(PROTOCOL_ORDER), str(p))


def group_rows(decisions: list[dict[str, Any]], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accuracy, invalid rate, cost and calibration per judge × agent × protocol × task and task type."""
    decisions = [d for d in decisions if not d.get("unjudged")]
    costs = cost_mod.cost_table(decisions, calls)
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        groups[("task", d["judge"], d["agent"], d["protocol"], d["task"], d.get("task_type"))].append(d)
        groups[("task_type", d["judge"], d["agent"], d["protocol"], None, d.get("task_type"))].append(d)
    rows = []
    for (level, judge, agent, proto, task, ttype), ds in groups.items():
        row = {"level": level, "judge": judge, "agent": agent, "protocol": proto, "task": task, "task_type": ttype,
               **stats.accuracy(ds)}
        tasks = [task] if task else sorted({d["task"] for d in ds})
        parts = [costs.get((judge, agent, proto, t)) for t in tasks]
        parts = [p for p in parts if p]
        nq = sum(p["n_questions"] for p in parts)
        have = [p for p in parts if p["calls"]]
        for f in ("calls", "tokens", "seconds", "prompt_tokens", "completion_tokens"):
            key = f"{f}_per_question"
            row[key] = (sum((p[key] or 0) * p["n_questions"] for p in have) / nq) if have and nq else None
        tpq = row["tokens_per_question"]
        row["accuracy_per_1k_tokens"] = (row["accuracy"] / (tpq / 1000)) if tpq and row["accuracy"] is not None else None
        cal = stats.calibration(ds)
        row.update(brier=cal["brier"] if cal else None, ece=cal["ece"] if cal else None, n_calibrated=cal["n"] if cal else 0)
        rows.append(row)
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), str(r["agent"]), _proto_key(r["protocol"])))
    return rows


def permutation_rows(decisions: list[dict[str, Any]], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    rows = []
    for r in stats.protocol_pvalues(decisions, ("judge", "agent", "task"), n_resamples=n_resamples):
        rows.append({"level": "task", "task_type": None, **r})
    for r in stats.protocol_pvalues(decisions, ("judge", "agent", "task_type"), n_resamples=n_resamples):
        rows.append({"level": "task_type", "task": None, **r})
    return rows


def calibration_rows(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        if not d.get("unjudged"):
            groups[(d["judge"], d["agent"], d["protocol"])].append(d)
    rows = []
    for (judge, agent, proto), ds in sorted(groups.items(), key=lambda kv: str(kv[0])):
        cal = stats.calibration(ds)
        if cal:
            rows.append({"judge": judge, "agent": agent, "protocol": proto, **cal})
    return rows


def compute_matched_rows(decisions: list[dict[str, Any]], groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for g in groups:
        if g["level"] != "task" or g["protocol"] != "debate":
            continue
        jobs = [d for d in decisions if d.get("protocol") == "debate" and d["judge"] == g["judge"]
                and d["agent"] == g["agent"] and d["task"] == g["task"] and not d.get("unjudged")]
        n_q = len({d["question_id"] for d in jobs})
        per_job = g["calls_per_question"] * n_q / len(jobs) if g["calls_per_question"] and jobs else None
        cm = cost_mod.compute_matched(decisions, per_job, g["judge"], g["task"])
        rows.append({"judge": g["judge"], "agent": g["agent"], "task": g["task"], "debate_accuracy": g["accuracy"],
                     "debate_calls_per_question": g["calls_per_question"], "debate_calls_per_job": per_job, **cm})
    return rows


def _elo_section(runs: list[Run]) -> dict[str, Any] | None:
    games, rows = elo_mod.games_from_runs(runs)
    if not games or not any(g["player_1"] != g["player_2"] for g in games):
        return None
    out = elo_mod.elo_analysis(games)
    out["accuracy_by_debater"] = elo_mod.accuracy_by_debater(rows)
    return out


# -- tables ----------------------------------------------------------------------------------------

def _fmt(v: Any, pct: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return f"{100 * v:.1f}" if pct else (f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}")
    return str(v)


def md_table(rows: list[dict[str, Any]], cols: list[tuple[str, str, bool]]) -> str:
    """Markdown table; cols are (key, header, as_percent)."""
    lines = ["| " + " | ".join(h for _, h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(k), p).replace("|", "\\|") for k, _, p in cols) + " |")
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    keys: list[str] = []
    for r in rows:
        keys += [k for k, v in r.items() if k not in keys and not isinstance(v, (dict, list))]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


GROUP_COLS = [("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
              ("task", "task", False), ("task_type", "type", False), ("n", "n", False), ("accuracy", "acc %", True),
              ("ci_low", "CI low", True), ("ci_high", "CI high", True), ("invalid_rate", "invalid %", True),
              ("calls_per_question", "calls/q", False), ("tokens_per_question", "tokens/q", False),
              ("seconds_per_question", "s/q", False), ("accuracy_per_1k_tokens", "acc/1k tok", False)]


def markdown(report: dict[str, Any]) -> str:
    parts = ["# oversight-bench report", "",
             f"Generated {report['generated']} from {len(report['runs'])} run(s): "
             + ", ".join(f"`{r['dir']}`" for r in report["runs"]), "",
             "Accuracy: replicates of a question averaged, then a normal 95% interval across questions. "
             "Invalid answers are excluded from accuracy and counted in `invalid %`.", "",
             "## Accuracy by task type", "",
             md_table([r for r in report["groups"] if r["level"] == "task_type"], [c for c in GROUP_COLS if c[0] != "task"]),
             "", "## Accuracy by task", "", md_table([r for r in report["groups"] if r["level"] == "task"], GROUP_COLS)]
    if report["permutation_tests"]:
        parts += ["", "## Paired permutation tests between protocols", "",
                  md_table(report["permutation_tests"], [("judge", "judge", False), ("agent", "agent", False), ("task", "task", False),
                                                         ("task_type", "type", False), ("protocol_a", "A", False), ("protocol_b", "B", False),
                                                         ("n", "n", False), ("diff", "A−B (pp)", True), ("p_value", "p", False)])]
    if report["open_role"]:
        parts += ["", "## Open roles", "",
                  md_table(report["open_role"], [("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
                                                 ("task", "task", False), ("task_type", "type", False), ("n", "n", False),
                                                 ("win_rate", "win %", True), ("accuracy", "acc %", True),
                                                 ("accuracy_agent_correct", "acc if agent right %", True),
                                                 ("accuracy_agent_incorrect", "acc if agent wrong %", True),
                                                 ("agent_correct_rate", "agent right %", True)])]
        strat = []
        for r in report["open_role"]:
            for s, b in r["by_difficulty"].items():
                strat.append({**{k: r.get(k) for k in ("judge", "agent", "protocol", "task", "task_type")}, "stratum": s, **b})
        if strat:
            parts += ["", "### Stratified by difficulty (the judge's own QA-without-article correctness)", "",
                      md_table(strat, [("judge", "judge", False), ("protocol", "protocol", False), ("task", "task", False),
                                       ("task_type", "type", False), ("stratum", "stratum", False), ("n", "n", False),
                                       ("accuracy_agent_correct", "acc if agent right %", True), ("n_agent_correct", "n right", False),
                                       ("accuracy_agent_incorrect", "acc if agent wrong %", True), ("n_agent_incorrect", "n wrong", False)])]
    if report["calibration"]:
        parts += ["", "## Calibration", "", md_table(report["calibration"], [("judge", "judge", False), ("agent", "agent", False),
                                                                        ("protocol", "protocol", False), ("n", "n", False),
                                                                        ("brier", "Brier", False), ("ece", "ECE", False)])]
    if report["compute_matched"]:
        parts += ["", "## Compute-matched baseline (judge QA-without-article majority vote over k samples)", "",
                  md_table(report["compute_matched"], [("judge", "judge", False), ("agent", "agent", False), ("task", "task", False),
                                                       ("debate_accuracy", "debate acc %", True), ("k", "k", False),
                                                       ("available", "available", False), ("accuracy", "QA@k acc %", True),
                                                       ("reason", "note", False)])]
    if report.get("elo"):
        agg = report["elo"]["aggregate"]
        rows = [{"player": p, "elo": agg["ratings"][p], "lo": agg["ci_low"][p], "hi": agg["ci_high"][p],
                 "truth_adv": (report["elo"].get("truth_advantage") or {}).get(p),
                 "acc": (report["elo"].get("accuracy_by_debater") or {}).get(p, {}).get("accuracy")} for p in agg["players"]]
        parts += ["", f"## Elo (scale {agg['scale']}, {agg['n_games']} cross-play games, {agg['n_bootstrap']}-seed bootstrap over {agg['bootstrap_unit']}s; prior: {agg['prior']})", "",
                  md_table(rows, [("player", "debater", False), ("elo", "Elo", False), ("lo", "CI low", False), ("hi", "CI high", False),
                                  ("truth_adv", "correct − incorrect Elo", False), ("acc", "self-play judge acc %", True)])]
    return "\n".join(parts) + "\n"


# -- figures -----------------------------------------------------------------------------------------

def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fig_accuracy(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figure 2-like: accuracy by protocol (bars) × judge (x) with 95% CIs, one panel per task type."""
    rows = [r for r in groups if r["level"] == "task_type" and r["accuracy"] is not None]
    if not rows:
        return False
    plt = _plt()
    types = sorted({r["task_type"] for r in rows})
    all_protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(all_protos)}  # one colour per protocol in every panel
    fig, axes = plt.subplots(1, len(types), figsize=(5.5 * len(types), 4.2), squeeze=False)
    for ax, tt in zip(axes[0], types):
        rr = [r for r in rows if r["task_type"] == tt]
        judges = sorted({r["judge"] for r in rr})
        protos = sorted({r["protocol"] for r in rr}, key=_proto_key)
        width = 0.8 / max(1, len(protos))
        for k, p in enumerate(protos):
            xs, ys, lo, hi = [], [], [], []
            for i, j in enumerate(judges):
                vals = [r for r in rr if r["judge"] == j and r["protocol"] == p]
                if not vals:
                    continue
                r = max(vals, key=lambda r: r["n"])
                xs.append(i + (k - (len(protos) - 1) / 2) * width)
                ys.append(r["accuracy"])
                lo.append(r["accuracy"] - (r["ci_low"] if r["ci_low"] is not None else r["accuracy"]))
                hi.append((r["ci_high"] if r["ci_high"] is not None else r["accuracy"]) - r["accuracy"])
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=p, color=colour[p])
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xticks(range(len(judges)))
        ax.set_xticklabels([j.split(":")[-1][:22] for j in judges], rotation=20, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(tt)
        ax.set_ylabel("judge accuracy")
    from matplotlib.patches import Patch

    axes[0][-1].legend(handles=[Patch(color=colour[p], label=p) for p in all_protos], fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def fig_open_role(open_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure 3-like: win rate and accuracy when the agent chose correctly / wrongly, per judge."""
    rows = [r for r in open_rows if r["level"] == "task_type"]
    if not rows:
        return False
    plt = _plt()
    types = sorted({r["task_type"] for r in rows})
    fig, axes = plt.subplots(2, len(types), figsize=(5.5 * len(types), 6.5), squeeze=False)
    for c, tt in enumerate(types):
        rr = sorted([r for r in rows if r["task_type"] == tt], key=lambda r: (r["judge"], r["protocol"]))
        labels = [f"{r['judge'].split(':')[-1][:14]}\n{r['protocol'].replace('open_', 'open ')}" for r in rr]
        x = range(len(rr))
        axes[0][c].bar(x, [r["win_rate"] or 0 for r in rr], color="tab:purple")
        axes[0][c].set_title(f"{tt}: win rate")
        axes[1][c].bar([i - 0.2 for i in x], [r["accuracy_agent_correct"] or 0 for r in rr], 0.4, label="agent chose correct")
        axes[1][c].bar([i + 0.2 for i in x], [r["accuracy_agent_incorrect"] or 0 for r in rr], 0.4, label="agent chose incorrect", color="lightblue")
        axes[1][c].set_title(f"{tt}: judge accuracy")
        for ax in (axes[0][c], axes[1][c]):
            ax.set_xticks(list(x))
            ax.set_xticklabels(labels, fontsize=7)
            ax.set_ylim(0, 1)
    axes[1][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def fig_elo(elo: dict[str, Any], path: Path) -> bool:
    """Figure 4-like: correct vs incorrect Elo per debater (top), aggregate Elo vs judge accuracy (bottom)."""
    if not elo:
        return False
    plt = _plt()
    agg = elo["aggregate"]
    fig, axes = plt.subplots(2, 1, figsize=(6, 7))
    ps = agg["players"]
    if elo.get("by_side"):
        bs = elo["by_side"]
        for k, side in enumerate(("correct", "incorrect")):
            ys = [bs["ratings"].get(f"{p}@{side}") for p in ps]
            xs = [i + (k - 0.5) * 0.35 for i in range(len(ps))]
            ok = [(x, y) for x, y in zip(xs, ys) if y is not None]
            axes[0].bar([a for a, _ in ok], [b for _, b in ok], 0.35, label=f"{side} Elo")
        axes[0].legend(fontsize=8)
    else:
        axes[0].bar(range(len(ps)), [agg["ratings"][p] for p in ps])
    axes[0].set_xticks(range(len(ps)))
    axes[0].set_xticklabels([p.split(":")[-1][:18] for p in ps], fontsize=7, rotation=15)
    axes[0].set_ylabel("Elo")
    accs = elo.get("accuracy_by_debater") or {}
    for p in ps:
        a = accs.get(p, {})
        if a.get("accuracy") is None:
            continue
        x = agg["ratings"][p]
        xerr = [[x - (agg["ci_low"][p] or x)], [(agg["ci_high"][p] or x) - x]]
        yerr = [[a["accuracy"] - (a["ci_low"] or a["accuracy"])], [(a["ci_high"] or a["accuracy"]) - a["accuracy"]]]
        axes[1].errorbar([x], [a["accuracy"]], xerr=xerr, yerr=yerr, fmt="o", capsize=3)
        axes[1].annotate(p.split(":")[-1][:18], (x, a["accuracy"]), fontsize=7)
    axes[1].set_xlabel("aggregate Elo")
    axes[1].set_ylabel("judge accuracy, self-play")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def fig_reliability(cal_rows: list[dict[str, Any]], path: Path) -> bool:
    if not cal_rows:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0.5, 1], [0.5, 1], color="grey", ls="--", lw=0.8)
    for r in cal_rows[:12]:
        ax.plot([b["confidence"] for b in r["bins"]], [b["accuracy"] for b in r["bins"]], marker="o",
                label=f"{r['judge'].split(':')[-1][:16]} / {r['protocol']} (ECE {r['ece']:.2f})")
    ax.set_xlabel("judge confidence (top choice)")
    ax.set_ylabel("accuracy")
    ax.set_xlim(0.5, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# -- entry point -----------------------------------------------------------------------------------------

def analyse(runs: list[Run], *, n_resamples: int = stats.N_RESAMPLES, with_elo: bool = True) -> dict[str, Any]:
    decisions = [d for r in runs for d in r.decisions]
    calls = [c for r in runs for c in r.calls]
    if not decisions:
        raise BenchError("no decision records in " + ", ".join(str(r.dir) for r in runs) + "; expected finished jobs")
    groups = group_rows(decisions, calls)
    return {
        "schema": SCHEMA,
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "report_commit": _git_commit(),
        "runs": [run_provenance(r) for r in runs],
        "groups": groups,
        "permutation_tests": permutation_rows(decisions, n_resamples),
        "open_role": openrole.open_role_metrics(decisions),
        "calibration": calibration_rows(decisions),
        "compute_matched": compute_matched_rows(decisions, groups),
        "elo": _elo_section(runs) if with_elo else None,
        "unjudged_records": sum(1 for d in decisions if d.get("unjudged")),
    }


def _clean(o: Any) -> Any:
    """JSON without NaN: undefined numbers become null."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def build_report(dirs: Iterable[str | Path], output: str | Path | None = None, *, n_resamples: int = stats.N_RESAMPLES,
                 figures: bool = True) -> dict[str, Any]:
    """Analyse run directories; with `output`, write report.json, report.md, CSV tables and PNG figures."""
    runs = load_runs(list(dirs), with_turns=True)
    report = _clean(analyse(runs, n_resamples=n_resamples))
    if output is None:
        return report
    out = Path(output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create report folder {out}: {exc.strerror}; expected a writable path") from None
    files = {"markdown": "report.md", "groups_csv": "groups.csv", "permutation_csv": "permutation_tests.csv",
             "open_role_csv": "open_role.csv"}
    write_csv(out / "groups.csv", report["groups"])
    write_csv(out / "permutation_tests.csv", report["permutation_tests"])
    write_csv(out / "open_role.csv", report["open_role"])
    if figures:
        for name, fn, arg in (("fig2_accuracy.png", fig_accuracy, report["groups"]),
                              ("fig3_open_role.png", fig_open_role, report["open_role"]),
                              ("fig4_elo.png", fig_elo, report["elo"]),
                              ("reliability.png", fig_reliability, report["calibration"])):
            if fn(arg, out / name):
                files[name.split(".")[0]] = name
    report["files"] = files
    (out / "report.md").write_text(markdown(report))
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return report
