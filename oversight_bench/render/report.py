"""report.md: the report's tables (`analysis.report.analyse`'s rows) as Markdown."""

from __future__ import annotations

from typing import Any

from oversight_bench.render.markdown import md_code, md_table, md_text
from oversight_bench.render.numbers import pct_sign
from oversight_bench.render.quality_text import stance_text


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
    rows = [{**r, "stance": stance_text(r, st)} for r in report["groups"] if r["level"] == "task" and r.get("n_stance") is not None]
    rows = [r for r in rows if r["stance"]]
    return ["", "## Stance check: arguments for the other side or conceding", "",
            f"Checker {md_code(st['checker'])} asked which answer each argument supports (1, 2 or neither); "
            f"its accuracy on {md_text(st['calibration'])}: {pct_sign(st['checker_accuracy'])} of "
            f"{st['n_calibration']} arguments whose side is known.", "",
            md_table(rows, with_setting([("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False),
                                         ("task", "task", False), ("n_stance", "n checked", False),
                                         ("n_other_side", "other side", False), ("n_concede", "concede", False),
                                         ("stance_off_rate", "other side or concede %", True),
                                         ("stance", "with checker accuracy", False)], rows))]


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
