"""`report` on synthetic stores written through the ordinary store API."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from oversight_bench.publish.report import build_report
from fake_runs import make_crossplay, make_run
from helpers import decision_row
from oversight_bench.analysis_cli import elo, report
from oversight_bench.errors import BenchError

GROUP_FIELDS = {"level", "judge", "agent", "protocol", "task", "task_type", "n", "n_records", "accuracy", "ci_low", "ci_high",
                "n_invalid", "invalid_rate", "calls_per_question", "tokens_per_question", "prompt_tokens_per_question",
                "completion_tokens_per_question", "seconds_per_question", "accuracy_per_1k_tokens", "brier", "ece", "n_calibrated"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("rep")
    run = make_run(base / "run", n_questions=10)
    xp = make_crossplay(base / "xp", {"weak": -100.0, "mid": 0.0, "strong": 100.0}, n_games=300, truth_bonus=40)
    rep = build_report([run, xp], base / "out", n_resamples=999)
    return base, rep


def test_files_exist(built):
    base, rep = built
    out = base / "out"
    for name in ("report.json", "report.md", "groups.csv", "permutation_tests.csv", "open_role.csv",
                 "fig2_accuracy.png", "fig3_open_role.png", "fig4_elo.png", "reliability.png"):
        assert (out / name).stat().st_size > 100, name
    assert (out / "fig2_accuracy.png").read_bytes()[:4] == b"\x89PNG"
    assert set(rep["files"].values()) <= {p.name for p in out.iterdir()}


def test_schema(built):
    base, _ = built
    rep = json.loads((base / "out" / "report.json").read_text())
    assert rep["schema"] == "oversight-bench/report/v1"
    for g in rep["groups"]:
        assert GROUP_FIELDS <= set(g)
    levels = {g["level"] for g in rep["groups"]}
    assert levels == {"task", "task_type"}
    by = {(g["level"], g["agent"], g["protocol"], g["task"] or g["task_type"]): g for g in rep["groups"]}
    deb = by[("task_type", "sim:agent", "debate", "extractive")]
    assert deb["n"] == 20 and 0 <= deb["ci_low"] <= deb["accuracy"] <= deb["ci_high"] <= 1
    assert deb["calls_per_question"] == pytest.approx(10)  # 2 orders x (2 rounds x 2 debaters + 1 judge)
    assert deb["tokens_per_question"] > 0 and deb["accuracy_per_1k_tokens"] > 0
    assert deb["brier"] is not None
    qa = by[("task", "sim:agent", "qa_with_article", "quality")]
    assert qa["calls_per_question"] == pytest.approx(2)
    assert by[("task", "sim:agent", "consultancy", "mmlu")]["n_records"] == 40
    assert ("task", "sim:agent", "qa_with_article", "mmlu") not in by
    for row in rep["permutation_tests"]:
        assert {"protocol_a", "protocol_b", "n", "diff", "p_value"} <= set(row) and 0 <= row["p_value"] <= 1
    assert any(r["protocol"] == "open_consultancy" and r["by_difficulty"] for r in rep["open_role"])
    for r in rep["open_role"]:
        assert {"win_rate", "accuracy", "accuracy_agent_correct", "accuracy_agent_incorrect"} <= set(r)
    cm = [r for r in rep["compute_matched"] if r["agent"] == "sim:agent"]
    assert cm and all(r["available"] and r["k"] == 5 for r in cm)  # 10 calls per question over 2 orders
    assert rep["calibration"] and all(0 <= c["ece"] <= 1 for c in rep["calibration"])
    elo_ = rep["elo"]
    assert set(elo_["aggregate"]["players"]) == {"weak", "mid", "strong"}
    r = elo_["aggregate"]["ratings"]
    assert r["weak"] < r["mid"] < r["strong"]
    assert set(elo_["truth_advantage"]) == {"weak", "mid", "strong"}
    with open(base / "out" / "groups.csv") as f:
        assert len(list(csv.DictReader(f))) == len(rep["groups"])


def test_compute_matched_unavailable_without_samples(tmp_path):
    run = make_run(tmp_path / "run", n_questions=4, qa_samples=0)
    rep = build_report([run], n_resamples=99)
    assert rep["compute_matched"] and not any(r["available"] for r in rep["compute_matched"])
    assert all("samples" in r["reason"] for r in rep["compute_matched"])
    assert rep["elo"] is None


def test_cli_report_and_elo(tmp_path):
    run = make_run(tmp_path / "run", n_questions=4)
    res = CliRunner().invoke(report, [str(run), "--output", str(tmp_path / "out"), "--no-figures"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "report.json").exists()
    xp = make_crossplay(tmp_path / "xp", {"a": 0.0, "b": 200.0}, n_games=100)
    res = CliRunner().invoke(elo, [str(xp), "--output", str(tmp_path / "elo"), "--bootstrap", "20"])
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "elo" / "elo.json").read_text())
    assert data["aggregate"]["ratings"]["b"] > data["aggregate"]["ratings"]["a"]
    assert (tmp_path / "elo" / "fig4_elo.png").exists()


def test_user_errors(tmp_path):
    with pytest.raises(BenchError, match="does not exist"):
        build_report([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(BenchError, match="not a run directory"):
        build_report([tmp_path / "empty"])
    run = make_run(tmp_path / "run", n_questions=2)
    from oversight_bench.analysis.elo import elo_from_store

    with pytest.raises(BenchError, match="cross-play"):
        elo_from_store([run])


# -- paper metrics (Fig. A.8, A.9), deviations, the debiased-judge label, ablation settings ------------

def _dec(protocol, qid, order, answer, assignment=None, judge="J", task="t", task_type="closed"):
    ci = 1 if order == "correct_first" else 2
    return decision_row(protocol=protocol, question_id=qid, answer_order=order, assignment=assignment, answer=answer,
                        correct_index=ci, judge=judge, agent="A", task=task, task_type=task_type)


def test_position_bias_is_the_mean_selected_position():
    from oversight_bench.analysis.report import position_rows

    # a judge that always answers 1 in debate (bias), and alternates in QA (none); one invalid answer
    decs = [_dec("debate", f"q{i}", o, 1) for i in range(4) for o in ("correct_first", "correct_second")]
    decs += [_dec("qa_without_article", f"q{i}", o, 1 if o == "correct_first" else 2)
             for i in range(4) for o in ("correct_first", "correct_second")]
    decs.append(_dec("qa_without_article", "q9", "correct_first", None))
    rows = {r["protocol"]: r for r in position_rows(decs) if r["level"] == "task_type"}
    assert rows["debate"]["mean_position"] == 1.0 and rows["debate"]["first_rate"] == 1.0
    assert rows["qa_without_article"]["mean_position"] == 1.5 and rows["qa_without_article"]["n_records"] == 8
    assert rows["qa_without_article"]["ci_low"] == rows["qa_without_article"]["ci_high"] == 1.5  # per-question means


def test_consultancy_split_by_assigned_side_and_open_choice():
    from oversight_bench.analysis import openrole
    from oversight_bench.analysis.report import consultancy_split_rows

    decs = []
    for i in range(4):  # the judge always follows the consultant: right when assigned correct, wrong otherwise
        for o in ("correct_first", "correct_second"):
            ci = 1 if o == "correct_first" else 2
            decs += [_dec("consultancy", f"q{i}", o, ci, "correct"), _dec("consultancy", f"q{i}", o, 3 - ci, "incorrect"),
                     _dec("qa_without_article", f"q{i}", o, ci if i < 3 else 3 - ci, judge="A")]  # agent wrong on q3
    (row,) = [r for r in consultancy_split_rows(decs, openrole.open_role_metrics(decs)) if r["level"] == "task_type"]
    assert row["assigned_correct_accuracy"] == 1.0 and row["assigned_incorrect_accuracy"] == 0.0
    assert row["assigned_correct_n"] == row["assigned_incorrect_n"] == 4
    assert row["open_correct_accuracy"] == 1.0 and row["open_correct_n"] == 3
    assert row["open_incorrect_accuracy"] == 0.0 and row["open_incorrect_n"] == 1


def test_report_head_lists_deviations_and_new_sections(built):
    base, rep = built
    md = (base / "out" / "report.md").read_text()
    assert "rounds 2 (paper 3)" in md  # the synthetic run's config says rounds 2
    assert "## Positional bias" in md and "## Consultancy by the consultant's side" in md
    from oversight_bench.deviations import invalid_answer_deviation

    assert rep["runs"][0]["deviations"] == ["rounds 2 (paper 3)", invalid_answer_deviation()]
    for name in ("figA8_position_bias.png", "figA9_consultancy.png", "figB1_accuracy_by_task.png", "position_bias.csv",
                 "consultancy_split.csv"):
        assert (base / "out" / name).stat().st_size > 100, name


def test_debiased_judge_is_a_label_not_a_model_option(tmp_path):
    """A store written before judge_debias existed names its judge `...,debias=True`; reports show
    the plain name with "(debiased)" and a judge_debias field, never the option in the name."""
    legacy = make_run(tmp_path / "legacy", judge="sim:judge-a,debias=True", n_questions=3)
    new = make_run(tmp_path / "new", judge="sim:judge-a", n_questions=3)
    cfg = json.loads((new / "config.json").read_text())
    (new / "config.json").write_text(json.dumps({**cfg, "judge_debias": False}))
    rep = build_report([legacy, new], tmp_path / "out", n_resamples=99, figures=False)
    judges = {(g["judge"], g["judge_debias"]) for g in rep["groups"]}
    assert judges == {("sim:judge-a (debiased)", True), ("sim:judge-a", False)}
    assert [r["judge"] for r in rep["runs"]] == ["sim:judge-a (debiased)", "sim:judge-a"]
    assert "judge debiased" in " ".join(rep["runs"][0]["deviations"]) and "judge debiased" not in " ".join(rep["runs"][1]["deviations"])
    assert "debias=True" not in (tmp_path / "out" / "report.md").read_text()


def test_runs_differing_in_a_setting_are_separate_rows_and_an_ablation_figure(tmp_path):
    parent = tmp_path / "ablation"
    for rounds in (1, 3):
        d = make_run(parent / f"rounds-{rounds}", n_questions=4, seed=rounds)
        cfg = json.loads((d / "config.json").read_text())
        (d / "config.json").write_text(json.dumps({**cfg, "options": {**cfg["options"], "rounds": rounds}}))
    rep = build_report([parent], tmp_path / "out", n_resamples=99)  # the parent folder stands for its runs
    assert len(rep["runs"]) == 2
    assert {g["setting"] for g in rep["groups"]} == {"rounds=1", "rounds=3"}
    deb = [g for g in rep["groups"] if g["level"] == "task_type" and g["protocol"] == "debate" and g["task_type"] == "closed"]
    assert len(deb) == 2 and all(g["n"] == 4 for g in deb)  # not averaged into one row of 8
    assert (tmp_path / "out" / "figA_ablation.png").stat().st_size > 100
    assert "| setting |" in (tmp_path / "out" / "report.md").read_text()


def test_leaderboard_head_lists_each_runs_deviations(tmp_path):
    from oversight_bench.publish.leaderboard import build_leaderboard

    run = make_run(tmp_path / "run", judge="sim:judge-a,debias=True", n_questions=3)
    res = build_leaderboard([run], tmp_path / "lb")
    (row,) = res["judges"]
    assert row["judge"] == "sim:judge-a (debiased)" and "rounds 2 (paper 3)" in row["deviations"]
    assert any(d.startswith("judge debiased") for d in row["deviations"])
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    notes = md[md.index("**sim:judge-a (debiased)**"):]
    assert "\n- judge debiased" in notes  # every cell's: no list of cells
    # the rounds shaped the agents' transcripts only: QA cells ran no agent, so the line names the cells
    # it applies to (before, every QA cell declared the rounds and agent budgets its jobs never used)
    rounds = next(line for line in notes.splitlines() if line.startswith("- rounds 2 (paper 3)"))
    assert " — only " in rounds and "debate · closed" in rounds and "qa_" not in rounds
    assert "sim:judge-a (debiased)" in md and "debias=True" not in md
    assert "rounds 2 (paper 3)" in (tmp_path / "lb" / "index.html").read_text()
    out = CliRunner().invoke(report, [str(run), "--output", str(tmp_path / "rep"), "--no-figures"])
    assert out.exit_code == 0 and "rounds 2 (paper 3)" in out.output


def test_figures_are_written_and_closed_even_when_drawing_fails(tmp_path):
    """Every figure goes through `saved_figure`: the PNG is written and the figure closed, and a figure
    whose drawing fails is closed too, leaving no file (pyplot would keep it open for the process)."""
    from oversight_bench.render.figures import saved_figure

    with saved_figure(tmp_path / "ok.png", 1, 2, figsize=(4, 2)) as (fig, axes):
        axes[0].plot([0, 1], [0, 1])
    import matplotlib.pyplot as plt

    assert (tmp_path / "ok.png").read_bytes()[:4] == b"\x89PNG" and fig.number not in plt.get_fignums()
    with pytest.raises(ZeroDivisionError):
        with saved_figure(tmp_path / "bad.png", 1, 2) as (bad, axes):
            axes[0].plot([0, 1], [0, 1 / 0])
    assert not (tmp_path / "bad.png").exists() and bad.number not in plt.get_fignums()


def test_report_on_a_store_with_only_unjudged_decisions_is_one_line(tmp_path):
    """Probe H13: an llm-debate import whose judge column holds no answer is a valid store of unjudged
    decisions; `report` on it ended in StopIteration. Now one `error:` line, exit 2, like a run whose
    jobs all failed."""
    import csv as csv_

    from helpers import cli

    story = "The ship landed on the red moon at dawn."
    t = {"question": "What lands?", "story": story, "answers": {"correct": "the ship", "incorrect": "the moon"},
         "names": {"correct": "Debater A", "incorrect": "Debater B"}, "rollout_type": "quality_sim",
         "rounds": [{"correct": "<argument>A</argument>", "incorrect": "<argument>B</argument>"}]}
    path = tmp_path / "k.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv_.DictWriter(f, fieldnames=["id", "question", "question_set_id", "story", "transcript", "answer"])
        w.writeheader()
        w.writerow({"id": 0, "question": "What lands?", "question_set_id": "s0", "story": story,
                    "transcript": json.dumps(t), "answer": ""})
    res = cli("import", "llm-debate", str(path), "--output", str(tmp_path / "run"))
    assert res.exit_code == 0, res.output
    res = cli("report", str(tmp_path / "run"), "--output", str(tmp_path / "rep"), "--no-figures")
    assert res.exit_code == 2 and "Traceback" not in res.output, (res.output, res.exception)
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("error:") and "no judged decision" in err[0], res.output
