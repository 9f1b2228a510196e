"""The one pipeline and its three plans; the end-of-run table agrees with `report`."""

from __future__ import annotations

import inspect

from oversight_bench import commands
from oversight_bench.analysis.load import load_run
from oversight_bench.analysis.report import group_rows
from oversight_bench.end_of_run import summarize
from oversight_bench.pipeline import Plan
from oversight_bench.plans import CrossplayPlan, JudgePlan, RunPlan, crossplay_jobs
from oversight_bench.questions import Question
from oversight_bench.rundir.store import Store

from helpers import FAKE, cli


def _decision(st: Store, qid: str, order: str, answer: int | None) -> None:
    correct = None if answer is None else answer == (1 if order == "correct_first" else 2)
    fields = {"judge": "j", "agent": "a", "protocol": "debate", "task": "t", "question_id": qid,
              "assignment": None, "answer_order": order}
    st.write_job(f"debate|t|{qid}|-|{order}", fields, [], {"raw": "", "answer": answer, "correct": correct,
                                                          "correct_index": 1 if order == "correct_first" else 2})


def test_summary_averages_per_question_like_report(tmp_path):
    st = Store.open(tmp_path / "run", write=True)
    try:
        _decision(st, "q1", "correct_first", 1)       # q1: 2 of 2 right
        _decision(st, "q1", "correct_second", 2)
        _decision(st, "q2", "correct_first", 1)       # q2: 1 of 2 right
        _decision(st, "q2", "correct_second", 1)
        _decision(st, "q3", "correct_first", 2)       # q3: 0 of 1 valid right, one invalid
        _decision(st, "q3", "correct_second", None)
        (row,) = summarize(st)
    finally:
        st.close()
    # per record it would be 3/5 = 0.6; per question (1 + 0.5 + 0) / 3
    assert row["accuracy"] == 0.5 and (row["n"], row["valid"], row["invalid"]) == (6, 5, 1)
    run = load_run(tmp_path / "run")
    (rep,) = [r for r in group_rows(run.decisions, run.calls) if r["level"] == "task"]
    assert rep["accuracy"] == row["accuracy"]


def test_end_of_run_table_equals_report_for_a_real_run(tmp_path):
    out = tmp_path / "run"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa,truthfulqa", "--limit", "6",
              "--protocols", "qa_without_article,debate,consultancy", "--answer-order", "both",
              "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    st = Store.open(out)
    try:
        table = {(r["protocol"], r["task"]): r["accuracy"] for r in summarize(st)}
    finally:
        st.close()
    run = load_run(out)
    report = {(r["protocol"], r["task"]): r["accuracy"] for r in group_rows(run.decisions, run.calls) if r["level"] == "task"}
    assert table == report and len(table) == 6


def test_end_of_run_quality_equals_report(tmp_path):
    """The streamed summary's quality figures are `report`'s (turns read through load_run)."""
    from oversight_bench.analysis.quality import turns_lookup

    out = tmp_path / "run"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3",
              "--protocols", "qa_without_article,debate", "--answer-order", "both", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    st = Store.open(out)
    try:
        table = {r["protocol"]: r for r in summarize(st)}
    finally:
        st.close()
    run = load_run(out, with_turns=True)
    rows = {r["protocol"]: r for r in group_rows(run.decisions, run.calls, turns_lookup([run])) if r["level"] == "task"}
    keys = ("n_agent_turns", "forced_rate", "cut_rate", "argumentless_rate", "mean_argument_words", "answer1_share",
            "accuracy_invalid_wrong", "flagged")
    for p in ("qa_without_article", "debate"):
        assert {k: table[p]["quality"][k] for k in keys} == {k: rows[p][k] for k in keys}
    assert table["debate"]["quality"]["n_agent_turns"] > 0 and table["debate"]["quality"]["n_budget_turns"] > 0


def test_commands_are_short_functions_over_one_pipeline():
    for command in (commands.run_eval, commands.rejudge, commands.run_crossplay):
        src = inspect.getsource(command)
        assert "execute(" in src and len(src.splitlines()) <= 12, command.__name__
        assert "_protocols" not in src
    for plan in (RunPlan, JudgePlan, CrossplayPlan):
        assert issubclass(plan, Plan)


def test_crossplay_jobs_run_the_planned_games():
    from oversight_bench.crossplay import plan_games

    qs = [Question(id=str(i), task="t", task_type="closed", question="?", correct="a", incorrect="b") for i in range(8)]
    games = plan_games({"t": qs}, ["x", "y"], pairings=4, seed=0)
    jobs = crossplay_jobs("debate-protocol", games)
    assert [(j[1].question, j[1].debaters, j[1].answer_order) for j in jobs] == [(g.question, g.debaters, g.answer_order) for g in games]
    assert {j[1].debaters for j in jobs} >= {("x", "y"), ("y", "x")}
    assert jobs == crossplay_jobs("debate-protocol", plan_games({"t": qs}, ["x", "y"], pairings=4, seed=0))  # seeded
