"""`analyse(runs)`: the report's rows (no markup: `render.report` draws them, `publish.report.build_report`
writes report.json, report.md, the CSV tables and the figures).

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
  reasons the row fails the quality bar, `analysis.quality.flags`, in words; empty when it passes),
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
* `stance_check` (only with `report --stance-check SPEC`, `publish/stance.py`): {checker, calibration (the set
  named), checker_accuracy, n_calibration, calls (checker calls this report made; 0 on a rerun)}; `groups` rows then
  carry `n_stance, n_other_side, n_concede, n_stance_unparsed, stance_off_rate`.
* `files`: names of the tables and figures written next to report.json.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from oversight_bench.analysis import cost as cost_mod
from oversight_bench.analysis import elo as elo_mod
from oversight_bench.analysis import openrole, stats
from oversight_bench.analysis import quality as quality_mod
from oversight_bench.analysis import stance as stance_mod
from oversight_bench.analysis.load import Run
from oversight_bench.analysis.rows import CallRow, DecisionRow, judge_fields
from oversight_bench.deviations import recorded_deviations
from oversight_bench.errors import BenchError
from oversight_bench.protocol import derived_pairs, display_key, protocols_where, registered_protocols

SCHEMA = "oversight-bench/report/v1"


def run_provenance(run: Run) -> dict[str, Any]:
    c = run.config or {}
    label, _, debias = judge_fields(c.get("judge"), c) if c.get("judge") else (None, None, False)
    devs = recorded_deviations(c)
    return {"dir": str(run.dir), "judge": label, "judge_debias": debias, "agent": c.get("agent"),
            "seed": c.get("seed"), "versions": c.get("versions"), "created": c.get("created") or c.get("started"),
            "commit": c.get("commit") or (c.get("versions") or {}).get("commit"),
            "import": c.get("import"), "options": c.get("options"), "deviations": devs}


def _proto_key(p: str) -> tuple:
    return display_key(p)


def group_rows(decisions: list[DecisionRow], calls: list[CallRow], turns_of=None, stance_of=None) -> list[dict[str, Any]]:
    """Accuracy, invalid rate, cost, calibration and transcript quality (`quality.quality`, from the
    turns `turns_of(decision)` gives) per judge × agent × protocol × task and task type; with
    `stance_of(decision)` (the stance check's checked arguments of its job), the stance figures."""
    decisions = [d for d in decisions if not d.unjudged]
    costs = cost_mod.cost_table(decisions, calls)
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        groups[("task", d.judge, d.agent, d.setting, d.protocol, d.task, d.task_type)].append(d)
        groups[("task_type", d.judge, d.agent, d.setting, d.protocol, None, d.task_type)].append(d)
    rows = []
    for (level, judge, agent, setting, proto, task, ttype), ds in groups.items():
        row = {"level": level, "judge": judge, "judge_debias": bool(ds[0].judge_debias), "agent": agent,
               "setting": setting, "protocol": proto, "task": task, "task_type": ttype, **stats.accuracy(ds)}
        row.update({k: v for k, v in quality_mod.quality(ds, turns_of).items() if k != "accuracy_valid"})
        if stance_of is not None:
            row.update(stance_mod.figures(it for d in ds for it in stance_of(d)))
        tasks = [task] if task else sorted({d.task for d in ds})
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


def permutation_rows(decisions: list[DecisionRow], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    rows = []
    for r in stats.protocol_pvalues(decisions, ("judge", "agent", "setting", "task"), n_resamples=n_resamples):
        rows.append({"level": "task", "task_type": None, **r})
    for r in stats.protocol_pvalues(decisions, ("judge", "agent", "setting", "task_type"), n_resamples=n_resamples):
        rows.append({"level": "task_type", "task": None, **r})
    return rows


def derived_rows(decisions: list[DecisionRow], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    """Each protocol derived from another's stored transcripts (`Protocol.derived_from`) against that
    protocol, per judge × agent × setting × task and task type: accuracy of both on the questions both
    have, and the paired permutation test of the difference (source − derived)."""
    pairs = derived_pairs()
    wanted = {p for pair in pairs for p in pair}
    groups: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.unjudged or d.protocol not in wanted:
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d.judge, d.agent, d.setting, task, ttype)][d.protocol].append(d)
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


def calibration_rows(decisions: list[DecisionRow]) -> list[dict[str, Any]]:
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        if not d.unjudged:
            groups[(d.judge, d.agent, d.setting, d.protocol)].append(d)
    rows = []
    for (judge, agent, setting, proto), ds in sorted(groups.items(), key=lambda kv: str(kv[0])):
        cal = stats.calibration(ds)
        if cal:
            rows.append({"judge": judge, "agent": agent, "setting": setting, "protocol": proto, **cal})
    return rows


def compute_matched_rows(decisions: list[DecisionRow], groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    assigned_debates = protocols_where("has_debaters") - protocols_where("open_role")
    for g in groups:
        if g["level"] != "task" or g["protocol"] not in assigned_debates:
            continue
        jobs = [d for d in decisions if d.protocol == g["protocol"] and d.judge == g["judge"]
                and d.agent == g["agent"] and d.task == g["task"] and d.setting == g["setting"]
                and not d.unjudged]
        n_q = len({d.question_id for d in jobs})
        per_job = g["calls_per_question"] * n_q / len(jobs) if g["calls_per_question"] and jobs else None
        cm = cost_mod.compute_matched(decisions, per_job, g["judge"], g["task"])
        rows.append({"judge": g["judge"], "agent": g["agent"], "setting": g["setting"], "task": g["task"], "debate_accuracy": g["accuracy"],
                     "debate_calls_per_question": g["calls_per_question"], "debate_calls_per_job": per_job, **cm})
    return rows


def _levels(d: DecisionRow) -> list[tuple[str, str | None, str | None]]:
    """The (level, task, task_type) rows a decision counts in: its task and its task type."""
    return [("task", d.task, d.task_type), ("task_type", None, d.task_type)]


def position_rows(decisions: list[DecisionRow]) -> list[dict[str, Any]]:
    """Positional bias (§4.1, Fig. A.8): the mean answer position (1 or 2) the judge selected, per
    judge × agent × setting × protocol × task and task type, over valid answers. The datasets are
    balanced, so 1.5 means no bias. Replicates of a question are averaged first, then a normal 95%
    interval across questions (App. D); `first_rate` is the share of answers that picked 1."""
    groups: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        if d.unjudged or d.answer is None:
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d.judge, d.agent, d.setting, d.protocol, task, ttype)].append(d)
    rows = []
    for (level, judge, agent, setting, proto, task, ttype), ds in groups.items():
        pq = stats.per_question(ds, "answer")  # the answer's position, 1 or 2
        m, lo, hi = stats.normal_ci(pq.values())
        rows.append({"level": level, "judge": judge, "agent": agent, "setting": setting, "protocol": proto, "task": task,
                     "task_type": ttype, "n": len(pq), "n_records": len(ds), "mean_position": m, "ci_low": lo, "ci_high": hi,
                     "first_rate": sum(float(d.answer == 1) for d in ds) / len(ds)})
    rows.sort(key=lambda r: (r["level"], str(r["task_type"]), str(r["task"]), str(r["judge"]), _proto_key(r["protocol"]), str(r["setting"])))
    return rows


def consultancy_split_rows(decisions: list[DecisionRow], open_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fig. A.9: assigned-role consultancy accuracy split by whether the consultant argued for the
    correct or the incorrect answer, next to open consultancy split by the consultant's own choice,
    per judge × agent × setting × task and task type."""
    consultancies = {n: p.open_form for n, p in registered_protocols().items()
                     if p.open_form and not p.has_debaters and p.assignments() == ["correct", "incorrect"]}
    groups: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.protocol not in consultancies or d.unjudged or d.assignment not in ("correct", "incorrect"):
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d.judge, d.agent, d.setting, task, ttype)][d.assignment].append(d)
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


def judge_tool_rows(decisions: list[DecisionRow], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    """Accuracy with and without each judge tool (beyond the paper), per judge × agent × other settings ×
    protocol × task and task type, with the paired permutation test over the questions both arms judged
    (replicates of a question averaged first, as everywhere). Only groups where a judge had a tool."""
    if not any(d.judge_tool for d in decisions):
        return []
    groups: dict[tuple, dict[str | None, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.unjudged:
            continue
        for level, task, ttype in _levels(d):
            groups[(level, d.judge, d.agent, d.setting_besides_tool, d.protocol, task, ttype)][
                d.judge_tool].append(d)
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


# -- human judges (`serve`) -------------------------------------------------------------------------------

def is_human(judge: Any) -> bool:
    return str(judge).startswith("human:")


def human_rows(decisions: list[DecisionRow]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per human judge × protocol (and "all"): decisions, accuracy, time per decision, reasons given;
    and every stated reason, from the decisions' `extra.human`."""
    mine = [d for d in decisions if is_human(d.judge) and not d.unjudged]
    groups: dict[tuple[str, str], list] = defaultdict(list)
    reasons = []
    for d in mine:
        groups[(d.judge, d.protocol)].append(d)
        groups[(d.judge, "all")].append(d)
        h = d.extra.human
        if h is not None and str(h.reason or "").strip():
            reasons.append({"judge": d.judge, "protocol": d.protocol, "task": d.task, "question_id": d.question_id,
                            "job_key": d.job_key, "correct": d.correct, "confidence": getattr(h, "confidence", None),
                            "seconds": h.time_s, "reason": " ".join(str(h.reason).split())})
    rows = []
    for (judge, proto), ds in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "all", _proto_key(kv[0][1]))):
        times = [float(d.extra.human.time_s) for d in ds if d.extra.human is not None and d.extra.human.time_s is not None]
        rows.append({"judge": judge, "protocol": proto, "n": len(ds), "accuracy": stats.accuracy(ds)["accuracy"],
                     "seconds_median": statistics.median(times) if times else None,
                     "seconds_mean": statistics.fmean(times) if times else None,
                     "n_reasons": sum(1 for d in ds if d.extra.human is not None and str(d.extra.human.reason or "").strip())})
    reasons.sort(key=lambda r: (r["judge"], _proto_key(r["protocol"]), str(r["task"]), str(r["question_id"])))
    return rows, reasons


def human_vs_model_rows(decisions: list[DecisionRow], n_resamples: int = stats.N_RESAMPLES) -> list[dict[str, Any]]:
    """Each human judge (and all of them pooled, where several) against each model judge on the rooms
    (transcripts, by job key) both judged: a paired permutation test per protocol and over all."""
    def by_room(ds) -> dict[str, float]:
        acc: dict[str, list[float]] = defaultdict(list)
        for d in ds:
            if d.correct is not None and not d.unjudged:
                acc[d.job_key].append(float(d.correct))
        return {k: statistics.fmean(v) for k, v in acc.items()}

    humans: dict[str, list] = defaultdict(list)
    models: dict[tuple[str, Any], list] = defaultdict(list)
    for d in decisions:
        if is_human(d.judge):
            humans[d.judge].append(d)
        else:
            models[(d.judge, d.setting)].append(d)
    if len(humans) > 1:
        humans["human:*"] = [d for ds in list(humans.values()) for d in ds]
    rows = []
    for human, hds in sorted(humans.items()):
        for (model, setting), mds in sorted(models.items(), key=lambda kv: str(kv[0])):
            protos = sorted({d.protocol for d in hds}, key=_proto_key)
            for proto in ["all", *protos]:
                a = by_room(d for d in hds if proto == "all" or d.protocol == proto)
                b = by_room(d for d in mds if proto == "all" or d.protocol == proto)
                shared = set(a) & set(b)
                if not shared:
                    continue
                test = stats.paired_permutation_test(a, b, n_resamples=n_resamples)
                rows.append({"human": human, "model": model, "setting": setting, "protocol": proto, "n": len(shared),
                             "human_accuracy": statistics.fmean(a[k] for k in shared),
                             "model_accuracy": statistics.fmean(b[k] for k in shared),
                             "diff": test["diff"], "p_value": test["p_value"]})
    return rows


# -- entry point -----------------------------------------------------------------------------------------

def analyse(runs: list[Run], *, stamp: dict[str, Any] | None = None, n_resamples: int = stats.N_RESAMPLES,
            with_elo: bool = True, stance: tuple[dict, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The report's rows. `stamp`: when and from which commit it is made (`generated`, `report_commit`),
    given by the publisher (the clock and git are I/O), placed after `schema`. `stance`: the stance
    check's verdicts by (run dir, job key, judge) and its summary (`publish.stance.check_runs`)."""
    decisions = [d for r in runs for d in r.decisions]
    calls = [c for r in runs for c in r.calls]
    if not decisions:
        raise BenchError("no decision records in " + ", ".join(str(r.dir) for r in runs) + "; expected finished jobs")
    if all(d.unjudged for d in decisions):  # e.g. an import whose judge column holds no answer
        raise BenchError(f"no judged decision in {', '.join(str(r.dir) for r in runs)} ({len(decisions)} stored "
                         "unjudged, nothing to measure); expected a run with a judge's verdicts (`rejudge` gives "
                         "an imported one a judge)")
    stance_of, summary = None, None
    if stance is not None:
        by_job, summary = stance
        stance_of = lambda d: by_job.get((str(d.run_dir), d.job_key, d.judge)) or []  # noqa: E731
    groups = group_rows(decisions, calls, quality_mod.turns_lookup(runs), stance_of)
    open_role = openrole.open_role_metrics(decisions)
    return {
        "schema": SCHEMA,
        **(stamp or {}),
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
        "unjudged_records": sum(1 for d in decisions if d.unjudged),
        **dict(zip(("human_judges", "human_reasons"), human_rows(decisions))),
        "human_vs_model": human_vs_model_rows(decisions, n_resamples),
        "stance_check": summary,
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


