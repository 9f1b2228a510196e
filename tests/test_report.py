"""`report` on synthetic stores written through the ordinary store API."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from oversight_bench.analysis.report import build_report
from oversight_bench.analysis.synthetic import make_crossplay, make_run
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
