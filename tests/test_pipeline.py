"""The one pipeline and its three plans; the end-of-run table agrees with `report`."""

from __future__ import annotations

from oversight_bench import commands
from oversight_bench.analysis.load import load_run
from oversight_bench.analysis.report import group_rows
from oversight_bench.end_of_run import summarize
from oversight_bench.pipeline import Plan
from oversight_bench.plans import CrossplayPlan, JudgePlan, RunPlan, crossplay_jobs, crossplay_protocol
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
    # n counts questions (with a valid answer), as report does; answers are counted beside it
    assert row["accuracy"] == 0.5 and (row["n"], row["n_records"], row["n_invalid"]) == (3, 6, 1)
    run = load_run(tmp_path / "run")
    (rep,) = [r for r in group_rows(run.decisions, run.calls) if r["level"] == "task"]
    keys = ("n", "n_records", "n_invalid", "accuracy", "ci_low", "ci_high")
    assert {k: rep[k] for k in keys} == {k: row[k] for k in keys}


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


def test_run_judge_and_elo_take_their_plans_through_the_one_pipeline(tmp_path, monkeypatch):
    """Each command makes its plan and hands it to `pipeline.execute`, and so shares its checks: a
    judge spec with an unknown option is refused in the same words by all three, nothing written."""
    seen = []
    real = commands.execute

    def recording(plan, **kw):
        seen.append(type(plan))
        return real(plan, **kw)

    monkeypatch.setattr(commands, "execute", recording)

    def three(judge: str, tag: str) -> list:
        run = cli("run", "--judge", judge, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2",
                  "--protocols", "debate", "--output", str(tmp_path / f"run{tag}"), "--quiet")
        judged = cli("judge", "--from", str(tmp_path / "run"), "--judge", judge, "--output", str(tmp_path / f"judged{tag}"),
                     "--quiet")
        elo = cli("elo", "--judge", judge, "--debaters", f"{FAKE},{FAKE},delay=0", "--tasks", "boolq,mmlu",
                  "--pairings", "4", "--bootstrap", "10", "--output", str(tmp_path / f"elo{tag}"))
        return [run, judged, elo]

    assert [r.exit_code for r in three(FAKE, "")] == [0, 0, 0]
    assert seen == [RunPlan, JudgePlan, CrossplayPlan] and all(issubclass(p, Plan) for p in seen)
    seen.clear()
    refused = three(f"{FAKE},no_such_option=1", "_bad")
    assert seen == [RunPlan, JudgePlan, CrossplayPlan], [r.output for r in refused]
    assert [r.exit_code for r in refused] == [2, 2, 2], [r.output for r in refused]
    errors = {r.output.strip().splitlines()[-1] for r in refused}
    assert len(errors) == 1 and "no_such_option" in errors.pop()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith("_bad")]


def test_crossplay_jobs_run_the_planned_games():
    from oversight_bench.crossplay import plan_games

    qs = [Question(id=str(i), task="t", task_type="closed", question="?", correct="a", incorrect="b") for i in range(8)]
    games = plan_games({"t": qs}, ["x", "y"], pairings=4, seed=0)
    debate = crossplay_protocol()
    assert debate.has_debaters and not debate.open_role  # the installed assigned-role debate
    jobs = crossplay_jobs(debate, games)
    assert all(j[0] is debate and j[1].protocol == debate.name for j in jobs)
    assert [(j[1].question, j[1].debaters, j[1].answer_order) for j in jobs] == [(g.question, g.debaters, g.answer_order) for g in games]
    assert {j[1].debaters for j in jobs} >= {("x", "y"), ("y", "x")}
    assert jobs == crossplay_jobs(debate, plan_games({"t": qs}, ["x", "y"], pairings=4, seed=0))  # seeded
