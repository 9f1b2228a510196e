"""`build_report(dirs, output)`: report.json, Markdown and CSV tables, PNG figures.

report.json schema (`schema` = "oversight-bench/report/v1"); every number may be null where undefined:

* `generated` (ISO time), `runs`: [{dir, judge, judge_debias, agent, seed, versions, created, commit, import,
  options, deviations}] where `deviations` lists the run's settings that differ from the paper's
  (`oversight_bench.deviations`; also at the head of report.md).
* `judge` everywhere is the judge's name, with " (debiased)" appended when the run used the
  position-debiased judge option (`judge_debias` says the same as a field); `setting` names the
  options in which a row's run differs from the other runs analysed (an ablation), else null.
* `groups`: one row per judge × agent × setting × protocol × task (`level` = "task") and per judge ×
  agent × setting × protocol × task type (`level` = "task_type", `task` = null), with
  `judge, judge_debias, agent, setting, protocol, task, task_type, level, n` (questions with a valid answer), `n_records`,
  `accuracy, ci_low, ci_high` (replicates of a question averaged, then a normal 95% interval across
  questions), `n_invalid, invalid_rate` (unparsed judge answers / records),
  `accuracy_invalid_wrong, invalid_wrong_ci_low, invalid_wrong_ci_high` (invalid answers counted as wrong),
  transcript quality (`analysis/quality.py`): `n_agent_turns, n_budget_turns, forced_rate, cut_rate` (null
  where no turn has a budget record), `n_argumentless, argumentless_rate, mean_argument_words, n_valid,
  n_answer1, answer1_share` (the judge's share of answer 1 among valid answers), `answer1_p` (its binomial
  p against 50%), `n_unverified_args, unverified_args_rate` (arguments mostly unverified quotes),
  `n_plain, n_plain_answer1, plain_answer1_share` (a debiased judge's orders, each alone), `flagged` (the
  reasons the row fails the quality bar, `analysis.quality.flags`; empty when it passes),
  cost: `calls_per_question, tokens_per_question, prompt_tokens_per_question,
  completion_tokens_per_question, seconds_per_question, accuracy_per_1k_tokens`,
  calibration where judge probabilities exist: `brier, ece, n_calibrated`.
* `permutation_tests`: [{judge, agent, level, task | task_type, protocol_a, protocol_b, n (shared
  questions), diff (accuracy a − b), p_value}] (two-sided, paired, 10,000 resamples).
* `derived_tests`: [{judge, agent, setting, level, task | task_type, protocol_a (the protocol whose stored
  transcripts were judged), protocol_b (the protocol derived from them, `Protocol.derived_from`: `judge --from
  RUN --as NAME`), n (shared questions), accuracy_a, accuracy_b (on those questions), diff (a − b), p_value}]
  (two-sided, paired per question, 10,000 resamples); the same tests are among `permutation_tests`.
* `open_role`: [{judge, agent, setting, protocol, level, task | task_type, source ("open_protocol" | "derived"),
  n, accuracy, ci_low, ci_high, win_rate, win_ci_low, win_ci_high, agent_correct_rate,
  accuracy_agent_correct (+ ci, n), accuracy_agent_incorrect (+ ci, n),
  by_difficulty: {judge_qa_correct | judge_qa_incorrect: same block}}].
* `position_bias` (Fig. A.8): [{level, judge, agent, setting, protocol, task, task_type, n, n_records,
  mean_position (1..2; 1.5 = no bias), ci_low, ci_high, first_rate}].
* `consultancy_split` (Fig. A.9): [{level, judge, agent, setting, task, task_type,
  assigned_correct_accuracy / _ci_low / _ci_high / _n, assigned_incorrect_…, open_correct_…, open_incorrect_…}]:
  assigned consultancy by the consultant's assigned side, open consultancy by its own choice.
* `calibration`: [{judge, agent, setting, protocol, n, brier, ece, bins: [{low, high, n, confidence, accuracy}]}].
* `compute_matched`: [{judge, agent, task, debate_accuracy, debate_calls_per_question, available,
  k, accuracy, ci_low, ci_high, reason}].
* `elo`: null, or {aggregate, by_side, truth_advantage, accuracy_by_debater} (see `elo.py`).
* `judge_tool` (beyond the paper, `-o judge_tool=NAME`): [{level, judge, agent, setting (the other settings
  in which the runs differ), protocol, task, task_type, tool, n_with, accuracy_with, with_ci_low, with_ci_high,
  n_without, accuracy_without, without_ci_low, without_ci_high, n_paired (questions judged both with and without
  the tool), diff (with − without, on those questions), p_value}] (two-sided paired permutation test, 10,000
  resamples); empty when no run had a tool. Re-judging a run with the tool (`judge --from RUN -o judge_tool=NAME`)
  gives both arms on the same transcripts.
* `human_judges` (judges `human:<name>`, from `serve`): [{judge, protocol ("all" for every protocol), n,
  accuracy, seconds_median, seconds_mean (time per decision, from the page shown to the decision), n_reasons}];
  `human_reasons`: [{judge, protocol, task, question_id, job_key, correct, confidence, seconds, reason}].
  Human judges' `groups` rows carry no cost (calls, tokens, seconds: null; a live room's agent calls are
  not the judge's cost).
* `human_vs_model`: [{human, model, setting, protocol ("all": every protocol), n (rooms, i.e. transcripts, both
  judged), human_accuracy, model_accuracy, diff (human − model), p_value}] (two-sided paired permutation test
  over the shared rooms, 10,000 resamples; "human:*" pools every human judge where there are several).
* `stance_check` (only with `report --stance-check SPEC`, `analysis/stance.py`): {checker, calibration (the set
  named), checker_accuracy, n_calibration, calls (checker calls this report made; 0 on a rerun)}; `groups` rows then
  carry `n_stance, n_other_side, n_concede, n_stance_unparsed, stance_off_rate`.
* `files`: names of the tables and figures written next to report.json.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import math
import re
import statistics
import subprocess
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from oversight_bench.analysis import cost as cost_mod
from oversight_bench.analysis import elo as elo_mod
from oversight_bench.analysis import openrole, stats
from oversight_bench.analysis import quality as quality_mod
from oversight_bench.analysis import stance as stance_mod
from oversight_bench.analysis.load import Run, judge_fields, load_runs
from oversight_bench.deviations import recorded_deviations
from oversight_bench.errors import BenchError
from oversight_bench.protocol import derived_pairs, display_key, protocols_where, registered_protocols
from oversight_bench.rundir.store import refuse_foreign_output, refuse_output_inside

SCHEMA = "oversight-bench/report/v1"


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def run_provenance(run: Run) -> dict[str, Any]:
    c = run.config or {}
    judge = judge_fields(c.get("judge"), c) if c.get("judge") else {"judge": None, "judge_debias": False}
    devs = recorded_deviations(c)
    return {"dir": str(run.dir), "judge": judge["judge"], "judge_debias": judge["judge_debias"], "agent": c.get("agent"),
            "seed": c.get("seed"), "versions": c.get("versions"), "created": c.get("created") or c.get("started"),
            "commit": c.get("commit") or (c.get("versions") or {}).get("commit"),
            "import": c.get("import"), "options": c.get("options"), "deviations": devs}


def deviation_lines(runs: list[dict[str, Any]]) -> list[str]:
    """The head of a report or leaderboard: each run's settings that differ from the paper's."""
    lines = []
    for r in runs:
        if r.get("import"):
            lines.append(f"- {md_code(r['dir'])}: imported transcripts (the source study's own protocol)")
        elif r.get("deviations"):
            lines.append(f"- {md_code(r['dir'])}: " + "; ".join(md_text(d) for d in r["deviations"]))
        else:
            lines.append(f"- {md_code(r['dir'])}: the paper's settings")
    return lines


def _proto_key(p: str) -> tuple:
    return display_key(p)


def group_rows(decisions: list[dict[str, Any]], calls: list[dict[str, Any]], turns_of=None, stance_of=None) -> list[dict[str, Any]]:
    """Accuracy, invalid rate, cost, calibration and transcript quality (`quality.quality`, from the
    turns `turns_of(decision)` gives) per judge × agent × protocol × task and task type; with
    `stance_of(decision)` (the stance check's checked arguments of its job), the stance figures."""
    decisions = [d for d in decisions if not d.get("unjudged")]
    costs = cost_mod.cost_table(decisions, calls)
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        groups[("task", d["judge"], d["agent"], d.get("setting"), d["protocol"], d["task"], d.get("task_type"))].append(d)
        groups[("task_type", d["judge"], d["agent"], d.get("setting"), d["protocol"], None, d.get("task_type"))].append(d)
    rows = []
    for (level, judge, agent, setting, proto, task, ttype), ds in groups.items():
        row = {"level": level, "judge": judge, "judge_debias": bool(ds[0].get("judge_debias")), "agent": agent,
               "setting": setting, "protocol": proto, "task": task, "task_type": ttype, **stats.accuracy(ds)}
        row.update({k: v for k, v in quality_mod.quality(ds, turns_of).items() if k != "accuracy_valid"})
        if stance_of is not None:
            row.update(stance_mod.figures(it for d in ds for it in stance_of(d)))
        tasks = [task] if task else sorted({d["task"] for d in ds})
        parts = [costs.get((judge, agent, proto, t)) for t in tasks]
        parts = [p for p in parts if p and not is_human(judge)]  # a person's cost is their time (`human_rows`)
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
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), str(r["agent"]),
                             _proto_key(r["protocol"]), str(r["setting"])))
    return rows


def permutation_rows(decisions: list[dict[str, Any]], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    rows = []
    for r in stats.protocol_pvalues(decisions, ("judge", "agent", "setting", "task"), n_resamples=n_resamples):
        rows.append({"level": "task", "task_type": None, **r})
    for r in stats.protocol_pvalues(decisions, ("judge", "agent", "setting", "task_type"), n_resamples=n_resamples):
        rows.append({"level": "task_type", "task": None, **r})
    return rows


def derived_rows(decisions: list[dict[str, Any]], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    """Each protocol derived from another's stored transcripts (`Protocol.derived_from`) against that
    protocol, per judge × agent × setting × task and task type: accuracy of both on the questions both
    have, and the paired permutation test of the difference (source − derived)."""
    pairs = derived_pairs()
    wanted = {p for pair in pairs for p in pair}
    groups: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.get("unjudged") or d.get("protocol") not in wanted:
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d["judge"], d["agent"], d.get("setting"), task, ttype)][d["protocol"]].append(d)
    rows = []
    for (level, judge, agent, setting, task, ttype), by in groups.items():
        for a, b in pairs:
            if not by.get(a) or not by.get(b):
                continue
            pa, pb = stats.per_question(by[a]), stats.per_question(by[b])
            shared = set(pa) & set(pb)
            test = stats.paired_permutation_test(pa, pb, n_resamples=n_resamples)
            rows.append({"level": level, "judge": judge, "agent": agent, "setting": setting, "task": task, "task_type": ttype,
                         "protocol_a": a, "protocol_b": b, "n": len(shared),
                         "accuracy_a": statistics.fmean(pa[k] for k in shared) if shared else None,
                         "accuracy_b": statistics.fmean(pb[k] for k in shared) if shared else None,
                         "diff": test["diff"], "p_value": test["p_value"]})
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), str(r["agent"]),
                             str(r["setting"]), _proto_key(r["protocol_a"]), _proto_key(r["protocol_b"])))
    return rows


def calibration_rows(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        if not d.get("unjudged"):
            groups[(d["judge"], d["agent"], d.get("setting"), d["protocol"])].append(d)
    rows = []
    for (judge, agent, setting, proto), ds in sorted(groups.items(), key=lambda kv: str(kv[0])):
        cal = stats.calibration(ds)
        if cal:
            rows.append({"judge": judge, "agent": agent, "setting": setting, "protocol": proto, **cal})
    return rows


def compute_matched_rows(decisions: list[dict[str, Any]], groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    assigned_debates = protocols_where("has_debaters") - protocols_where("open_role")
    for g in groups:
        if g["level"] != "task" or g["protocol"] not in assigned_debates:
            continue
        jobs = [d for d in decisions if d.get("protocol") == g["protocol"] and d["judge"] == g["judge"]
                and d["agent"] == g["agent"] and d["task"] == g["task"] and d.get("setting") == g["setting"]
                and not d.get("unjudged")]
        n_q = len({d["question_id"] for d in jobs})
        per_job = g["calls_per_question"] * n_q / len(jobs) if g["calls_per_question"] and jobs else None
        cm = cost_mod.compute_matched(decisions, per_job, g["judge"], g["task"])
        rows.append({"judge": g["judge"], "agent": g["agent"], "setting": g["setting"], "task": g["task"], "debate_accuracy": g["accuracy"],
                     "debate_calls_per_question": g["calls_per_question"], "debate_calls_per_job": per_job, **cm})
    return rows


def _levels(d: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    """The (level, task, task_type) rows a decision counts in: its task and its task type."""
    return [("task", d.get("task"), d.get("task_type")), ("task_type", None, d.get("task_type"))]


def position_rows(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Positional bias (§4.1, Fig. A.8): the mean answer position (1 or 2) the judge selected, per
    judge × agent × setting × protocol × task and task type, over valid answers. The datasets are
    balanced, so 1.5 means no bias. Replicates of a question are averaged first, then a normal 95%
    interval across questions (App. D); `first_rate` is the share of answers that picked 1."""
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        if d.get("unjudged") or d.get("answer") is None:
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d["judge"], d["agent"], d.get("setting"), d["protocol"], task, ttype)].append(
                {**d, "position": float(d["answer"]), "first": float(d["answer"] == 1)})
    rows = []
    for (level, judge, agent, setting, proto, task, ttype), ds in groups.items():
        pq = stats.per_question(ds, "position")
        m, lo, hi = stats.normal_ci(pq.values())
        rows.append({"level": level, "judge": judge, "agent": agent, "setting": setting, "protocol": proto, "task": task,
                     "task_type": ttype, "n": len(pq), "n_records": len(ds), "mean_position": m, "ci_low": lo, "ci_high": hi,
                     "first_rate": sum(d["first"] for d in ds) / len(ds)})
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), _proto_key(r["protocol"]), str(r["setting"])))
    return rows


def consultancy_split_rows(decisions: list[dict[str, Any]], open_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fig. A.9: assigned-role consultancy accuracy split by whether the consultant argued for the
    correct or the incorrect answer, next to open consultancy split by the consultant's own choice,
    per judge × agent × setting × task and task type."""
    consultancies = {n: p.open_form for n, p in registered_protocols().items()
                     if p.open_form and not p.has_debaters and p.assignments() == ["correct", "incorrect"]}
    groups: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.get("protocol") not in consultancies or d.get("unjudged") or d.get("assignment") not in ("correct", "incorrect"):
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d["judge"], d["agent"], d.get("setting"), task, ttype)][d["assignment"]].append(d)
    opens = {(r["level"], r["judge"], r["agent"], r.get("setting"), r.get(r["level"])): r
             for r in open_rows if r["protocol"] in consultancies.values()}
    rows = []
    for key, by in groups.items():
        level, judge, agent, setting, task, ttype = key
        row = {"level": level, "judge": judge, "agent": agent, "setting": setting, "task": task, "task_type": ttype}
        for side in ("correct", "incorrect"):
            acc = stats.accuracy(by.get(side, []))
            row.update({f"assigned_{side}_accuracy": acc["accuracy"], f"assigned_{side}_ci_low": acc["ci_low"],
                        f"assigned_{side}_ci_high": acc["ci_high"], f"assigned_{side}_n": acc["n"]})
        o = opens.get((level, judge, agent, setting, task if level == "task" else ttype))
        for side, suffix in (("correct", "_agent_correct"), ("incorrect", "_agent_incorrect")):
            row.update({f"open_{side}_accuracy": (o or {}).get(f"accuracy{suffix}"),
                        f"open_{side}_ci_low": (o or {}).get(f"ci_low{suffix}"),
                        f"open_{side}_ci_high": (o or {}).get(f"ci_high{suffix}"),
                        f"open_{side}_n": (o or {}).get(f"n{suffix}")})
        rows.append(row)
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), str(r["setting"])))
    return rows


def judge_tool_rows(decisions: list[dict[str, Any]], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    """Accuracy with and without each judge tool (beyond the paper), per judge × agent × other settings ×
    protocol × task and task type, with the paired permutation test over the questions both arms judged
    (replicates of a question averaged first, as everywhere). Only groups where a judge had a tool."""
    if not any(d.get("judge_tool") for d in decisions):
        return []
    groups: dict[tuple, dict[str | None, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.get("unjudged"):
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d["judge"], d["agent"], d.get("setting_besides_tool"), d["protocol"], task, ttype)][
                d.get("judge_tool")].append(d)
    rows = []
    for (level, judge, agent, setting, proto, task, ttype), arms in groups.items():
        without = arms.get(None) or []
        acc_without = stats.accuracy(without)
        for tool in sorted(t for t in arms if t):
            acc_with = stats.accuracy(arms[tool])
            test = stats.paired_permutation_test(stats.per_question(arms[tool]), stats.per_question(without),
                                                 n_resamples=n_resamples)
            rows.append({"level": level, "judge": judge, "agent": agent, "setting": setting, "protocol": proto,
                         "task": task, "task_type": ttype, "tool": tool,
                         "n_with": acc_with["n"], "accuracy_with": acc_with["accuracy"],
                         "with_ci_low": acc_with["ci_low"], "with_ci_high": acc_with["ci_high"],
                         "n_without": acc_without["n"], "accuracy_without": acc_without["accuracy"],
                         "without_ci_low": acc_without["ci_low"], "without_ci_high": acc_without["ci_high"],
                         "n_paired": test["n"], "diff": test["diff"], "p_value": test["p_value"]})
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), str(r["agent"]),
                             _proto_key(r["protocol"]), str(r["setting"]), r["tool"]))
    return rows


# -- tables ----------------------------------------------------------------------------------------

def _fmt(v: Any, pct: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, list):
        return "; ".join(map(str, v))
    if isinstance(v, float):
        if pct:
            return quality_mod.pct(v)  # the one rounding rule (quality.decimal_round)
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


#: Markdown punctuation that is active mid-line: links and images need `[` `]`, code spans a backtick,
#: emphasis `*` `_` (an underscore inside a word is not: `qa_without_article` stays as it is), GFM
#: strikethrough `~`, tables `|`; and the backslash itself, so none of these escapes can be undone
_MD_ACTIVE = re.compile(r"[\\`*\[\]~|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md_text(value: Any) -> str:
    """Text from a run (a model name, a task, a deviation, a flag, a carried board's value) for
    Markdown, shown as the text it is wherever the Markdown is rendered: `<` as an entity, so no tag,
    comment or autolink can start; Markdown's active punctuation backslash-escaped (`_MD_ACTIVE`), so
    no link, image, code span or emphasis can start; line breaks folded, so it stays in its table cell
    or list item; a leading `#`, `>`, `+`, `-` or `=` escaped so it starts no heading, quote or list."""
    text = _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), " ".join(str(value).split())).replace("<", "&lt;")
    return "\\" + text if text[:1] in ("#", ">", "+", "-", "=") else text


def md_code(value: Any) -> str:
    """Text as a Markdown code span, fenced by more backticks than it holds in a row."""
    text = " ".join(str(value).split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    pad = " " if longest else ""
    return f"{'`' * (longest + 1)}{pad}{text}{pad}{'`' * (longest + 1)}"


def md_table(rows: list[dict[str, Any]], cols: list[tuple[str, str, bool]]) -> str:
    """Markdown table; cols are (key, header, as_percent)."""
    lines = ["| " + " | ".join(h for _, h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(md_text(_fmt(r.get(k), p)) for k, _, p in cols) + " |")
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Flat columns; a list of strings (a cell's quality flags) becomes one "; "-joined column."""
    def flat(v: Any) -> bool:
        return not isinstance(v, (dict, list)) or (isinstance(v, list) and all(isinstance(x, str) for x in v))

    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    keys = [k for k in keys if all(flat(r.get(k)) for r in rows)]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows([{k: "; ".join(v) if isinstance(v, list) else v for k, v in r.items() if k in keys} for r in rows])


GROUP_COLS = [("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
              ("task", "task", False), ("task_type", "type", False), ("n", "n", False), ("accuracy", "acc %", True),
              ("ci_low", "CI low", True), ("ci_high", "CI high", True), ("invalid_rate", "invalid %", True),
              ("accuracy_invalid_wrong", "acc % (invalid = wrong)", True), ("argumentless_rate", "no-arg %", True),
              ("forced_rate", "forced %", True), ("cut_rate", "cut %", True),
              ("unverified_args_rate", "u-quote args %", True), ("mean_argument_words", "arg words", False),
              ("answer1_share", "answer 1 %", True), ("plain_answer1_share", "plain answer 1 %", True),
              ("flagged", "quality flags", False),
              ("calls_per_question", "calls/q", False), ("tokens_per_question", "tokens/q", False),
              ("seconds_per_question", "s/q", False), ("accuracy_per_1k_tokens", "acc/1k tok", False)]


def with_setting(cols: list[tuple[str, str, bool]], rows: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """Add a `setting` column after the agent when the runs differ in settings (an ablation)."""
    if not any(r.get("setting") for r in rows):
        return cols
    i = next((k + 1 for k, c in enumerate(cols) if c[0] == "agent"), 1)
    return cols[:i] + [("setting", "setting", False)] + cols[i:]


def markdown(report: dict[str, Any]) -> str:
    groups = report["groups"]
    gcols = with_setting(GROUP_COLS, groups)
    parts = ["# oversight-bench report", "",
             f"Generated {report['generated']} from {len(report['runs'])} run(s). Settings that differ from the "
             "paper's (arXiv 2407.04622: 3 rounds, simultaneous, debaters best-of-4, plain 0-shot predict judge, "
             "both answer orders, 128 questions per task):", "", *deviation_lines(report["runs"]), "",
             "Accuracy: replicates of a question averaged, then a normal 95% interval across questions. "
             "Invalid answers are excluded from accuracy (`acc %`, over valid answers) and counted in `invalid %`; "
             "`acc % (invalid = wrong)` counts them as wrong. Transcript quality: `no-arg %` of agent turns the judge "
             "saw without an argument, `forced %` (thinking budget spent, continued from \"Argument:\") and `cut %` "
             "(argument budget spent) of agent turns with a budget record (– where the run recorded none), mean "
             "argument words, and the judge's share of answer 1 among valid answers. `quality flags` name why a row "
             "fails the quality bar (any argument-less turn, > 10% cut, > 90% of answers on one position). "
             "A judge marked \"(debiased)\" ran with the position-debiased option (`debias=true`), not the paper's plain judge.", "",
             "## Accuracy by task type", "",
             md_table([r for r in groups if r["level"] == "task_type"], [c for c in gcols if c[0] != "task"]),
             "", "## Accuracy by task", "", md_table([r for r in groups if r["level"] == "task"], gcols)]
    parts += stance_markdown(report)
    pos = [r for r in report.get("position_bias") or [] if r["level"] == "task_type"]
    if pos:
        parts += ["", "## Positional bias (Fig. A.8): mean selected answer position (1.5 = none)", "",
                  md_table(pos, with_setting([("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
                                              ("task_type", "type", False), ("n", "n", False),
                                              ("mean_position", "mean position", False), ("ci_low", "CI low", False),
                                              ("ci_high", "CI high", False), ("first_rate", "picked 1 %", True)], pos))]
    split = [r for r in report.get("consultancy_split") or [] if r["level"] == "task_type"]
    if split:
        parts += ["", "## Consultancy by the consultant's side (Fig. A.9)", "",
                  "Assigned: the consultant was assigned the correct / incorrect answer. Open: the consultant's own "
                  "direct-QA choice was correct / incorrect.", "",
                  md_table(split, with_setting([("judge", "judge", False), ("agent", "agent", False), ("task_type", "type", False),
                                                ("assigned_correct_accuracy", "assigned correct acc %", True),
                                                ("assigned_correct_n", "n", False),
                                                ("assigned_incorrect_accuracy", "assigned incorrect acc %", True),
                                                ("assigned_incorrect_n", "n", False),
                                                ("open_correct_accuracy", "open, chose correct acc %", True),
                                                ("open_incorrect_accuracy", "open, chose incorrect acc %", True)], split))]
    if report["permutation_tests"]:
        parts += ["", "## Paired permutation tests between protocols", "",
                  md_table(report["permutation_tests"], with_setting(
                      [("judge", "judge", False), ("agent", "agent", False), ("task", "task", False),
                       ("task_type", "type", False), ("protocol_a", "A", False), ("protocol_b", "B", False),
                       ("n", "n", False), ("diff", "A−B (pp)", True), ("p_value", "p", False)], report["permutation_tests"]))]
    derived = report.get("derived_tests") or []
    if derived:
        parts += ["", "## Stored transcripts judged another way (paired per question)", "",
                  "B is a protocol derived from A's stored transcripts (`oversight-bench judge --from RUN --as B`; "
                  "`oversight-bench list protocols` marks them, and says what each shows the judge): the same rooms, "
                  "a different view for the judge. A − B is the accuracy that difference in view makes, on the "
                  "questions both have (same judge, agent and setting), with a two-sided paired permutation test. "
                  "The derived protocols are outside the paper (see the deviations above).", "",
                  md_table(derived, with_setting(
                      [("judge", "judge", False), ("agent", "agent", False), ("task", "task", False),
                       ("task_type", "type", False), ("protocol_a", "A", False), ("protocol_b", "B", False),
                       ("n", "n", False), ("accuracy_a", "A acc %", True), ("accuracy_b", "B acc %", True),
                       ("diff", "A−B (pp)", True), ("p_value", "p", False)], derived))]
    tool_rows = [r for r in report.get("judge_tool") or [] if r["level"] == "task"]
    if tool_rows:
        parts += ["", "## Judge tool (beyond the paper): accuracy with and without", "",
                  "The judge's prompt showed the tool's report on each answer (`-o judge_tool=NAME`; the paper's judges "
                  "have no tools). `with − without` is on the questions judged both ways (`n paired`), two-sided paired "
                  "permutation test (`p`).", "",
                  md_table(tool_rows, with_setting(
                      [("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
                       ("task", "task", False), ("tool", "tool", False), ("n_without", "n without", False),
                       ("accuracy_without", "acc % without", True), ("n_with", "n with", False),
                       ("accuracy_with", "acc % with", True), ("with_ci_low", "CI low (with)", True),
                       ("with_ci_high", "CI high (with)", True), ("n_paired", "n paired", False),
                       ("diff", "with − without (pp)", True), ("p_value", "p", False)], tool_rows))]
    if report["open_role"]:
        parts += ["", "## Open roles", "",
                  md_table(report["open_role"], with_setting([("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
                                                 ("task", "task", False), ("task_type", "type", False), ("n", "n", False),
                                                 ("win_rate", "win %", True), ("accuracy", "acc %", True),
                                                 ("accuracy_agent_correct", "acc if agent right %", True),
                                                 ("accuracy_agent_incorrect", "acc if agent wrong %", True),
                                                 ("agent_correct_rate", "agent right %", True)], report["open_role"]))]
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
        parts += ["", f"## Elo (scale {agg['scale']}, {agg['n_games']} cross-play games, {agg['n_bootstrap']}-seed bootstrap "
                      f"over {md_text(agg['bootstrap_unit'])}s; prior: {md_text(agg['prior'])})", "",
                  md_table(rows, [("player", "debater", False), ("elo", "Elo", False), ("lo", "CI low", False), ("hi", "CI high", False),
                                  ("truth_adv", "correct − incorrect Elo", False), ("acc", "self-play judge acc %", True)])]
    parts += human_markdown(report)
    return "\n".join(parts) + "\n"


def stance_markdown(report: dict[str, Any]) -> list[str]:
    """The stance check's table (`--stance-check SPEC`), each figure beside the checker's own accuracy."""
    st = report.get("stance_check")
    if not st:
        return []
    rows = [{**r, "stance": stance_mod.text(r, st)} for r in report["groups"] if r["level"] == "task" and r.get("n_stance") is not None]
    rows = [r for r in rows if r["stance"]]
    return ["", "## Stance check: arguments for the other side or conceding", "",
            f"Checker {md_code(st['checker'])} asked which answer each argument supports (1, 2 or neither); "
            f"its accuracy on {md_text(st['calibration'])}: {quality_mod.pct_sign(st['checker_accuracy'])} of "
            f"{st['n_calibration']} arguments whose side is known.", "",
            md_table(rows, with_setting([("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
                                         ("task", "task", False), ("n_stance", "n checked", False),
                                         ("n_other_side", "other side", False), ("n_concede", "concede", False),
                                         ("stance_off_rate", "other side or concede %", True),
                                         ("stance", "with checker accuracy", False)], rows))]


# -- human judges (`serve`) -------------------------------------------------------------------------------

def is_human(judge: Any) -> bool:
    return str(judge).startswith("human:")


def human_rows(decisions: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per human judge × protocol (and "all"): decisions, accuracy, time per decision, reasons given;
    and every stated reason, from the decisions' `extra.human`."""
    mine = [d for d in decisions if is_human(d["judge"]) and not d.get("unjudged")]
    groups: dict[tuple[str, str], list] = defaultdict(list)
    reasons = []
    for d in mine:
        groups[(d["judge"], d["protocol"])].append(d)
        groups[(d["judge"], "all")].append(d)
        h = (d.get("extra") or {}).get("human") or {}
        if str(h.get("reason") or "").strip():
            reasons.append({"judge": d["judge"], "protocol": d["protocol"], "task": d["task"], "question_id": d["question_id"],
                            "job_key": d["job_key"], "correct": d.get("correct"), "confidence": h.get("confidence"),
                            "seconds": h.get("time_s"), "reason": " ".join(str(h["reason"]).split())})
    rows = []
    for (judge, proto), ds in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "all", _proto_key(kv[0][1]))):
        times = [float(t) for d in ds if (t := ((d.get("extra") or {}).get("human") or {}).get("time_s")) is not None]
        rows.append({"judge": judge, "protocol": proto, "n": len(ds), "accuracy": stats.accuracy(ds)["accuracy"],
                     "seconds_median": statistics.median(times) if times else None,
                     "seconds_mean": statistics.fmean(times) if times else None,
                     "n_reasons": sum(1 for d in ds if str(((d.get("extra") or {}).get("human") or {}).get("reason") or "").strip())})
    reasons.sort(key=lambda r: (r["judge"], _proto_key(r["protocol"]), str(r["task"]), str(r["question_id"])))
    return rows, reasons


def human_vs_model_rows(decisions: list[dict[str, Any]], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    """Each human judge (and all of them pooled, where several) against each model judge on the rooms
    (transcripts, by job key) both judged: a paired permutation test per protocol and over all."""
    def by_room(ds) -> dict[str, float]:
        acc: dict[str, list[float]] = defaultdict(list)
        for d in ds:
            if d.get("correct") is not None and not d.get("unjudged"):
                acc[d["job_key"]].append(float(d["correct"]))
        return {k: statistics.fmean(v) for k, v in acc.items()}

    humans: dict[str, list] = defaultdict(list)
    models: dict[tuple[str, Any], list] = defaultdict(list)
    for d in decisions:
        if is_human(d["judge"]):
            humans[d["judge"]].append(d)
        else:
            models[(d["judge"], d.get("setting"))].append(d)
    if len(humans) > 1:
        humans["human:*"] = [d for ds in list(humans.values()) for d in ds]
    rows = []
    for human, hds in sorted(humans.items()):
        for (model, setting), mds in sorted(models.items(), key=lambda kv: str(kv[0])):
            protos = sorted({d["protocol"] for d in hds}, key=_proto_key)
            for proto in ["all", *protos]:
                a = by_room(d for d in hds if proto == "all" or d["protocol"] == proto)
                b = by_room(d for d in mds if proto == "all" or d["protocol"] == proto)
                shared = set(a) & set(b)
                if not shared:
                    continue
                test = stats.paired_permutation_test(a, b, n_resamples=n_resamples)
                rows.append({"human": human, "model": model, "setting": setting, "protocol": proto, "n": len(shared),
                             "human_accuracy": statistics.fmean(a[k] for k in shared),
                             "model_accuracy": statistics.fmean(b[k] for k in shared),
                             "diff": test["diff"], "p_value": test["p_value"]})
    return rows


def human_markdown(report: dict[str, Any]) -> list[str]:
    parts = []
    if report.get("human_judges"):
        parts += ["", "## Human judges", "",
                  "Time per decision runs from the page being shown to the decision (a live room includes the agent's "
                  "turns). Human judges have no cost columns above: the calls in their runs are the live agent's.", "",
                  md_table(report["human_judges"], [("judge", "judge", False), ("protocol", "protocol", False), ("n", "n", False),
                                                    ("accuracy", "acc %", True), ("seconds_median", "median s/decision", False),
                                                    ("seconds_mean", "mean s/decision", False), ("n_reasons", "reasons given", False)])]
    if report.get("human_vs_model"):
        parts += ["", "## Human vs model judges on the same rooms (paired permutation test)", "",
                  md_table(report["human_vs_model"], with_setting(
                      [("human", "human", False), ("model", "model judge", False), ("protocol", "protocol", False),
                       ("n", "rooms", False), ("human_accuracy", "human acc %", True), ("model_accuracy", "model acc %", True),
                       ("diff", "human − model (pp)", True), ("p_value", "p", False)], report["human_vs_model"]))]
    if report.get("human_reasons"):
        parts += ["", "### The human judges' reasons", "",
                  md_table(report["human_reasons"], [("judge", "judge", False), ("protocol", "protocol", False),
                                                     ("task", "task", False), ("question_id", "question", False),
                                                     ("correct", "correct", False), ("confidence", "confidence", False),
                                                     ("seconds", "s", False), ("reason", "reason", False)])]
    return parts


# -- figures -----------------------------------------------------------------------------------------

FIGURE_DPI = 110


@contextmanager
def saved_figure(path: Path, *grid: int, layout: dict[str, Any] | None = None, **subplots: Any) -> Iterator[tuple]:
    """`plt.subplots(*grid, **subplots)` for the `with` block to draw on; then the layout fitted
    (`layout`: tight_layout's arguments), the PNG written and the figure closed, also when drawing
    fails (pyplot keeps every open figure alive). Every figure of the report and the leaderboard."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(*grid, **subplots)
    try:
        yield fig, axes
        fig.tight_layout(**(layout or {}))
        fig.savefig(path, dpi=FIGURE_DPI)
    finally:
        plt.close(fig)


def fig_accuracy(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figure 2-like: accuracy by protocol (bars) × judge (x) with 95% CIs, one panel per task type."""
    rows = [r for r in groups if r["level"] == "task_type" and r["accuracy"] is not None]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    all_protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(all_protos)}  # one colour per protocol in every panel
    with saved_figure(path, 1, len(types), figsize=(5.5 * len(types), 4.2), squeeze=False) as (fig, axes):
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
    return True


def _short(name: Any, n: int = 22) -> str:
    return str(name).split(":")[-1][:n]


def _grouped_bars(ax, rows: list[dict[str, Any]], x_of, bar_of, value: str, lo: str, hi: str, colour: dict) -> list:
    """Bars of `value` with CI whiskers: x positions by `x_of(row)`, one bar per `bar_of(row)`."""
    xs_names = sorted({x_of(r) for r in rows})
    bars = sorted({bar_of(r) for r in rows}, key=str)
    width = 0.8 / max(1, len(bars))
    for k, b in enumerate(bars):
        xs, ys, los, his = [], [], [], []
        for i, xn in enumerate(xs_names):
            vals = [r for r in rows if x_of(r) == xn and bar_of(r) == b and r.get(value) is not None]
            if not vals:
                continue
            r = max(vals, key=lambda r: r.get("n") or 0)
            v = r[value]
            xs.append(i + (k - (len(bars) - 1) / 2) * width)
            ys.append(v)
            los.append(v - (r[lo] if r.get(lo) is not None else v))
            his.append((r[hi] if r.get(hi) is not None else v) - v)
        if xs:
            ax.bar(xs, ys, width, yerr=[los, his], capsize=2, label=str(b), color=colour.get(b))
    ax.set_xticks(range(len(xs_names)))
    ax.set_xticklabels([_short(x) for x in xs_names], rotation=20, ha="right", fontsize=8)
    return bars


def _legend(ax, colour: dict) -> None:
    """One legend entry per series of the whole figure, not only those in the panel it sits in."""
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=c, label=str(k)) for k, c in colour.items()], fontsize=7)


def fig_accuracy_by_task(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figure B.1-like: accuracy by protocol (bars) × judge (x) with 95% CIs, one panel per task."""
    rows = [r for r in groups if r["level"] == "task" and r["accuracy"] is not None]
    tasks = sorted({r["task"] for r in rows})
    if not rows:
        return False
    protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    cols = min(3, len(tasks))
    nrows = math.ceil(len(tasks) / cols)
    with saved_figure(path, nrows, cols, figsize=(5 * cols, 3.8 * nrows), squeeze=False) as (fig, axes):
        for ax, t in zip(axes.flat, tasks):
            _grouped_bars(ax, [r for r in rows if r["task"] == t], lambda r: r["judge"], lambda r: r["protocol"],
                          "accuracy", "ci_low", "ci_high", colour)
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_ylim(0, 1)
            ax.set_title(t)
        for ax in list(axes.flat)[len(tasks):]:
            ax.axis("off")
        _legend(axes.flat[0], colour)
    return True


def fig_ablation(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figures A.2-A.7-like: when the runs differ in a setting (rounds, best-of-N, few-shot, CoT, answer
    order, turn style), judge accuracy per setting (bars) × judge (x), one row per protocol, one column
    per task type."""
    rows = [r for r in groups if r["level"] == "task_type" and r["accuracy"] is not None and r.get("setting")]
    if len({r["setting"] for r in rows}) < 2:
        return False
    protos = sorted({r["protocol"] for r in rows if len({x["setting"] for x in rows if x["protocol"] == r["protocol"]}) > 1},
                    key=_proto_key) or sorted({r["protocol"] for r in rows}, key=_proto_key)
    types = sorted({r["task_type"] for r in rows})
    settings = sorted({r["setting"] for r in rows})
    colour = {st: f"C{i % 10}" for i, st in enumerate(settings)}
    with saved_figure(path, len(protos), len(types), figsize=(5 * len(types), 3.6 * len(protos)),
                      squeeze=False) as (fig, axes):
        for i, p in enumerate(protos):
            for j, tt in enumerate(types):
                ax = axes[i][j]
                _grouped_bars(ax, [r for r in rows if r["protocol"] == p and r["task_type"] == tt], lambda r: r["judge"],
                              lambda r: r["setting"], "accuracy", "ci_low", "ci_high", colour)
                ax.axhline(0.5, color="grey", lw=0.8, ls="--")
                ax.set_ylim(0, 1)
                ax.set_title(f"{p} · {tt}", fontsize=9)
        _legend(axes[0][-1], colour)
    return True


def fig_position(pos_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure A.8-like: mean selected answer position (1.5 = no bias) per protocol (bars) × judge (x)
    with 95% CIs, one panel per task type; runs that differ in a setting get a row each."""
    rows = [r for r in pos_rows if r["level"] == "task_type" and r["mean_position"] is not None]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    settings = sorted({r.get("setting") for r in rows}, key=str)
    protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    with saved_figure(path, len(settings), len(types), figsize=(5 * len(types), 3.6 * len(settings)),
                      squeeze=False) as (fig, axes):
        for i, st in enumerate(settings):
            for j, tt in enumerate(types):
                ax = axes[i][j]
                _grouped_bars(ax, [r for r in rows if r.get("setting") == st and r["task_type"] == tt], lambda r: r["judge"],
                              lambda r: r["protocol"], "mean_position", "ci_low", "ci_high", colour)
                ax.axhline(1.5, color="grey", lw=0.8, ls="--")
                ax.set_ylim(1, 2)
                ax.set_ylabel("mean answer position")
                ax.set_title(f"{tt}" + (f" · {st}" if st else ""), fontsize=9)
        _legend(axes[0][-1], colour)
    return True


def fig_consultancy_split(split_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure A.9-like: consultancy accuracy when the consultant argued for the correct / incorrect
    answer, assigned-role next to open, per judge, one panel per task type."""
    rows = [r for r in split_rows if r["level"] == "task_type"]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    series = [("assigned_correct", "assigned, correct", "tab:blue"), ("assigned_incorrect", "assigned, incorrect", "lightblue"),
              ("open_correct", "open, chose correct", "tab:green"), ("open_incorrect", "open, chose incorrect", "lightgreen")]
    with saved_figure(path, 1, len(types), figsize=(5.5 * len(types), 4), squeeze=False) as (fig, axes):
        for ax, tt in zip(axes[0], types):
            rr = sorted([r for r in rows if r["task_type"] == tt], key=lambda r: (str(r["judge"]), str(r.get("setting"))))
            width = 0.8 / len(series)
            for k, (key, label, colour) in enumerate(series):
                xs, ys, lo, hi = [], [], [], []
                for i, r in enumerate(rr):
                    v = r.get(f"{key}_accuracy")
                    if v is None:
                        continue
                    xs.append(i + (k - 1.5) * width)
                    ys.append(v)
                    lo.append(v - (r.get(f"{key}_ci_low") if r.get(f"{key}_ci_low") is not None else v))
                    hi.append((r.get(f"{key}_ci_high") if r.get(f"{key}_ci_high") is not None else v) - v)
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=label, color=colour)
            ax.set_xticks(range(len(rr)))
            ax.set_xticklabels([_short(r["judge"]) + (f"\n{r['setting']}" if r.get("setting") else "") for r in rr],
                               rotation=20, ha="right", fontsize=7)
            ax.set_ylim(0, 1)
            ax.set_title(f"{tt}: consultancy judge accuracy")
        axes[0][-1].legend(fontsize=7)
    return True


def fig_open_role(open_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure 3-like: win rate and accuracy when the agent chose correctly / wrongly, per judge."""
    rows = [r for r in open_rows if r["level"] == "task_type"]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    with saved_figure(path, 2, len(types), figsize=(5.5 * len(types), 6.5), squeeze=False) as (fig, axes):
        for c, tt in enumerate(types):
            rr = sorted([r for r in rows if r["task_type"] == tt], key=lambda r: (r["judge"], r["protocol"]))
            labels = [f"{r['judge'].split(':')[-1][:14]}\n{r['protocol'].replace('_', ' ')}" for r in rr]
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
    return True


def fig_elo(elo: dict[str, Any], path: Path) -> bool:
    """Figure 4-like: correct vs incorrect Elo per debater (top), aggregate Elo vs judge accuracy (bottom)."""
    if not elo:
        return False
    agg = elo["aggregate"]
    with saved_figure(path, 2, 1, figsize=(6, 7)) as (fig, axes):
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
    return True


def fig_reliability(cal_rows: list[dict[str, Any]], path: Path) -> bool:
    if not cal_rows:
        return False
    with saved_figure(path, figsize=(5.5, 5)) as (fig, ax):
        ax.plot([0.5, 1], [0.5, 1], color="grey", ls="--", lw=0.8)
        for r in cal_rows[:12]:
            ax.plot([b["confidence"] for b in r["bins"]], [b["accuracy"] for b in r["bins"]], marker="o",
                    label=f"{r['judge'].split(':')[-1][:16]} / {r['protocol']} (ECE {r['ece']:.2f})")
        ax.set_xlabel("judge confidence (top choice)")
        ax.set_ylabel("accuracy")
        ax.set_xlim(0.5, 1)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=6)
    return True


# -- entry point -----------------------------------------------------------------------------------------

def analyse(runs: list[Run], *, n_resamples: int = stats.N_RESAMPLES, with_elo: bool = True,
            stance_check: str | None = None, stance_calibration: str | Path | None = None) -> dict[str, Any]:
    decisions = [d for r in runs for d in r.decisions]
    calls = [c for r in runs for c in r.calls]
    if not decisions:
        raise BenchError("no decision records in " + ", ".join(str(r.dir) for r in runs) + "; expected finished jobs")
    if all(d.get("unjudged") for d in decisions):  # e.g. an import whose judge column holds no answer
        raise BenchError(f"no judged decision in {', '.join(str(r.dir) for r in runs)} ({len(decisions)} stored "
                         "unjudged, nothing to measure); expected a run with a judge's verdicts (`rejudge` gives "
                         "an imported one a judge)")
    stance_of, stance = None, None
    if stance_check:
        by_job, stance = stance_mod.check_runs(runs, stance_check, stance_calibration)
        stance_of = lambda d: by_job.get((str(d.get("run_dir")), d.get("job_key"), d.get("judge"))) or []  # noqa: E731
    groups = group_rows(decisions, calls, quality_mod.turns_lookup(runs), stance_of)
    open_role = openrole.open_role_metrics(decisions)
    return {
        "schema": SCHEMA,
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "report_commit": _git_commit(),
        "runs": [run_provenance(r) for r in runs],
        "groups": groups,
        "permutation_tests": permutation_rows(decisions, n_resamples),
        "derived_tests": derived_rows(decisions, n_resamples),
        "judge_tool": judge_tool_rows(decisions, n_resamples),
        "open_role": open_role,
        "position_bias": position_rows(decisions),
        "consultancy_split": consultancy_split_rows(decisions, open_role),
        "calibration": calibration_rows(decisions),
        "compute_matched": compute_matched_rows(decisions, groups),
        "elo": elo_mod.elo_of_runs(runs) if with_elo else None,
        "unjudged_records": sum(1 for d in decisions if d.get("unjudged")),
        **dict(zip(("human_judges", "human_reasons"), human_rows(decisions))),
        "human_vs_model": human_vs_model_rows(decisions, n_resamples),
        "stance_check": stance,
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


#: every name a report writes into its folder: an earlier report's folder (finished, or cut short by
#: a full disk: report.json comes last) holds only these, and anything else there is refused
REPORT_FILES = frozenset({"report.md", "report.json", "groups.csv", "permutation_tests.csv", "derived_tests.csv",
                          "open_role.csv", "position_bias.csv", "consultancy_split.csv", "judge_tool.csv",
                          "fig2_accuracy.png", "figB1_accuracy_by_task.png", "fig3_open_role.png", "fig4_elo.png",
                          "figA_ablation.png", "figA8_position_bias.png", "figA9_consultancy.png", "reliability.png"})


def build_report(dirs: Iterable[str | Path], output: str | Path | None = None, *, n_resamples: int = stats.N_RESAMPLES,
                 figures: bool = True, stance_check: str | None = None,
                 stance_calibration: str | Path | None = None) -> dict[str, Any]:
    """Analyse run directories; with `output` (never inside one of them), write report.json, report.md,
    CSV tables and PNG figures. `stance_check`: a checker model's spec (`analysis/stance.py`)."""
    dirs = list(dirs)
    if output is not None:
        refuse_output_inside(output, dirs, "report")
        refuse_foreign_output(output, "report", REPORT_FILES.__contains__, None, what="report")
    if stance_check:
        from oversight_bench.models import check_spec

        check_spec(stance_check)  # a bad spec is one line before anything is read or written
    runs = load_runs(dirs, with_turns=True)
    report = _clean(analyse(runs, n_resamples=n_resamples, stance_check=stance_check,
                            stance_calibration=stance_calibration))
    if output is None:
        return report
    out = Path(output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create report folder {out}: {exc.strerror}; expected a writable path") from None
    files = {"markdown": "report.md", "groups_csv": "groups.csv", "permutation_csv": "permutation_tests.csv",
             "open_role_csv": "open_role.csv", "position_bias_csv": "position_bias.csv",
             "consultancy_split_csv": "consultancy_split.csv"}
    if report["judge_tool"]:
        files["judge_tool_csv"] = "judge_tool.csv"
        write_csv(out / "judge_tool.csv", report["judge_tool"])
    write_csv(out / "groups.csv", report["groups"])
    write_csv(out / "permutation_tests.csv", report["permutation_tests"])
    if report["derived_tests"]:
        write_csv(out / "derived_tests.csv", report["derived_tests"])
        files["derived_tests_csv"] = "derived_tests.csv"
    write_csv(out / "open_role.csv", report["open_role"])
    write_csv(out / "position_bias.csv", report["position_bias"])
    write_csv(out / "consultancy_split.csv", report["consultancy_split"])
    if figures:
        for name, fn, arg in (("fig2_accuracy.png", fig_accuracy, report["groups"]),
                              ("figB1_accuracy_by_task.png", fig_accuracy_by_task, report["groups"]),
                              ("fig3_open_role.png", fig_open_role, report["open_role"]),
                              ("fig4_elo.png", fig_elo, report["elo"]),
                              ("figA_ablation.png", fig_ablation, report["groups"]),
                              ("figA8_position_bias.png", fig_position, report["position_bias"]),
                              ("figA9_consultancy.png", fig_consultancy_split, report["consultancy_split"]),
                              ("reliability.png", fig_reliability, report["calibration"])):
            if fn(arg, out / name):
                files[name.split(".")[0]] = name
    report["files"] = files
    (out / "report.md").write_text(markdown(report))
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return report
