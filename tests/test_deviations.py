"""Every setting that differs from the paper is declared, from data and options, never from a list
kept by hand: the option rules come from the option model (`CommonOptions` and each protocol's `Options`, field metadata), the
task subset from the run's tasks, dataset substitutions from the task files and their loaders'
counts, the Elo prior and the treatment of invalid answers from the code that applies them."""

from __future__ import annotations

import json
import shutil
import typing

import pytest

from helpers import DATA, REPO, cli
from oversight_bench.config import RunConfig
from oversight_bench.deviations import (deviations, elo_prior_deviation, invalid_answer_deviation, option_deviations,
                                        paper_tasks, task_deviations)
from oversight_bench.protocol import NO_PAPER_VALUE
from oversight_bench.protocol_options import OUTSIDE_PAPER
from oversight_bench.protocol_options import all_options_model

IMAGES = "scripted:default,images=true"
needs_data = pytest.mark.skipif(not (DATA / "mmlu").is_dir(), reason=f"no datasets at {DATA}")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


# -- options: the rule list is the option model ----------------------------------------------------------


def _bounds(field) -> tuple[typing.Any, typing.Any]:
    lo = next((m.ge for m in field.metadata if getattr(m, "ge", None) is not None), None)
    hi = next((m.le for m in field.metadata if getattr(m, "le", None) is not None), None)
    return lo, hi


def non_paper_value(name: str) -> typing.Any:
    """A valid value of option `name` that is not the paper's, picked from the field's type and
    constraints (any value, the default, for an option the paper leaves unset)."""
    field = all_options_model().model_fields[name]
    paper = (field.json_schema_extra or {})["paper"]  # KeyError: the field says nothing of the paper
    if paper == NO_PAPER_VALUE:
        return field.default
    if typing.get_origin(field.annotation) is typing.Literal:
        return next(v for v in typing.get_args(field.annotation) if v != paper)
    if field.annotation is bool:
        return not paper
    if str in typing.get_args(field.annotation):  # a name a plugin registers (judge_tool): the built-in one
        return "execute"
    step = 1 if field.annotation is int else 0.5
    lo, hi = _bounds(field)
    up = paper + step
    return up if hi is None or up <= hi else paper - step if lo is None or paper - step >= lo else pytest.fail(name)


@pytest.mark.parametrize("name", sorted(all_options_model().model_fields))
def test_every_option_says_what_the_paper_did_and_declares_any_other_value(name):
    extra = all_options_model().model_fields[name].json_schema_extra or {}
    assert "paper" in extra, f"option {name} has no `paper` value in its metadata: say what the paper did (or NO_PAPER_VALUE)"
    assert "label" in extra, f"option {name} has no `label`: how its deviation reads"
    value = non_paper_value(name)
    all_options_model().model_validate({name: value})  # a value the option accepts
    (line,) = option_deviations({name: value})
    assert str(value).lower() in line.lower() or isinstance(value, bool), line
    if extra["paper"] == OUTSIDE_PAPER:  # a plugin protocol's own option: declared at every value, its default too
        assert option_deviations({name: all_options_model().model_fields[name].default}) != []
    elif extra["paper"] != NO_PAPER_VALUE:
        assert option_deviations({name: extra["paper"]}) == []  # the paper's value: nothing to declare


def test_judge_temperature_default_is_a_declared_reading():
    assert "judge temperature 0.0" in " ".join(option_deviations(all_options_model()().model_dump()))


# -- which tasks ---------------------------------------------------------------------------------------------


def test_a_bare_run_declares_its_three_tasks():
    assert RunConfig().tasks == ["boolq", "mmlu", "prontoqa"]  # the task files that say in_default_run
    assert "3 of the paper's 9 tasks (boolq, mmlu, prontoqa)" in deviations(RunConfig())


def test_task_subset_follows_resolved_tasks_groups_and_readings():
    assert task_deviations({"tasks": ["all"]}) == []
    assert task_deviations({"tasks": list(paper_tasks()[0])}) == []
    assert task_deviations({"tasks": ["closed"]}) == ["5 of the paper's 9 tasks (mmlu, gsm8kqa, prontoqa, truthfulqa, gpqa)"]
    # the other reading of a paper task stands for it (its task file says so); a task outside the paper is named
    readings = str(REPO / "configs" / "paper" / "tasks")
    assert task_deviations({"tasks": ["gpqa_full", "mine"], "include_path": [readings]}) == [
        "1 of the paper's 9 tasks (gpqa)", "tasks not in the paper: mine"]
    # once loaded, the resolved names decide (a group may hold plugin tasks)
    assert task_deviations({"tasks": ["extractive"], "task_types": {"quality": "extractive", "boolq": "extractive"}}) == [
        "2 of the paper's 9 tasks (quality, boolq)"]


# -- dataset substitutions: the task file's words, the loader's counts ---------------------------------------


def _declared(name: str, env: dict | None = None, monkeypatch=None) -> tuple[list[str], int]:
    from oversight_bench.tasks import resolve_tasks

    (task,) = resolve_tasks([name], [str(REPO / "configs" / "tasks"), str(REPO / "configs" / "paper" / "tasks")])
    return task.load(DATA, 1, 0).deviations, task.available(DATA)


@needs_data
def test_quality_declares_its_fallback_subsets_with_counts():
    (line,), n = _declared("quality")
    assert n == 369  # 40 T_H + 342 NYU, less 12 shared and 1 without a correct answer
    assert line.startswith("369 questions from Khan et al. 2024's T_H set (its first 40,") and "(342," in line
    assert "12 shared questions kept once" in line and "instead of Khan et al.'s 400-question T_L train split" in line


@needs_data
def test_mmmu_declares_its_subset():
    (line,), n = _declared("mmmu")
    assert n == 655 and line.startswith("655 multiple-choice questions of a 676-question MMMU subset")


@needs_data
def test_prontoqa_declares_its_source_copies_or_the_generator(monkeypatch):
    (line,), n = _declared("prontoqa")
    assert n == 1000 and "(Logic-LLM: 500 5-hop" in line and "llm-reasoners: 500 3-5-hop" in line
    monkeypatch.setenv("OVERSIGHT_BENCH_SOURCE", "generator")
    (line,), n = _declared("prontoqa")
    assert line == f"{n} questions made by the built-in generator (3-5 hops, seed 0) instead of PrOntoQA's released data"
    (line,), _ = _declared("prontoqa_generated")
    assert "built-in generator" in line


@needs_data
@needs_bwrap
def test_gsm8kqa_declares_how_its_pairs_were_built():
    (line,), n = _declared("gsm8kqa")
    assert line.startswith(f"{n} program pairs: ") and "Program-of-Thoughts" in line and "more left out" in line


@needs_data
def test_tasks_with_the_papers_data_declare_nothing():
    for name in ("boolq", "truthfulqa", "gpqa_extractive"):
        assert _declared(name)[0] == [], name
    # MMLU (version 2) declares its reference rule, with its counts (tests/test_tasks.py checks them)
    assert [d.split(" questions dropped")[0] for d in _declared("mmlu")[0]] == ["344 of 13894"]
    assert _declared("gpqa")[0] == ['GPQA main set (448 questions), our reading of the paper\'s "full dataset" (App. F.2; '
                                    'the extended set is the task gpqa_full in configs/paper/tasks)']


def _fixture_task(tmp_path, substitution: str) -> str:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rows.csv").write_text("q,a,b\nWhat?,yes,no\nWho?,me,you\n")
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "tiny.yaml").write_text(
        "name: tiny\ntask_type: closed\nsource:\n  local: {files: [rows.csv], format: csv}\n"
        "fields: {question: q, correct: a, incorrect: b}\nbinary: {mode: pair}\n" + substitution)
    return str(tmp_path / "tasks")


def test_a_task_files_substitution_picks_its_case_and_fills_its_counts(tmp_path):
    from oversight_bench.errors import BenchError
    from oversight_bench.tasks import resolve_tasks

    inc = _fixture_task(tmp_path, "substitution:\n  local: '{n} rows from {source} files instead of the real set'\n  hub: null\n")
    (task,) = resolve_tasks(["tiny"], [inc])
    assert task.load(tmp_path / "data", 1, 0).deviations == ["2 rows from local files instead of the real set"]
    (tmp_path / "tasks" / "tiny.yaml").write_text((tmp_path / "tasks" / "tiny.yaml").read_text().replace("{source}", "{nope}"))
    (task,) = resolve_tasks(["tiny"], [inc])
    with pytest.raises(BenchError, match="substitution.*nope"):
        task.load(tmp_path / "data", 1, 0)


def test_a_run_stores_and_prints_its_substitutions(tmp_path):
    """The lines are added after the questions load, so config.json, the summary and report agree."""
    inc = _fixture_task(tmp_path, "substitution: '{n} made-up rows instead of the paper''s data'\n")
    out = tmp_path / "run"
    res = cli("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "tiny,prontoqa",
              "--include-path", inc, "--data-dir", str(tmp_path / "data"), "--protocols", "qa_without_article",
              "--limit", "1", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    devs = json.loads((out / "config.json").read_text())["deviations"]
    assert "tiny data: 2 made-up rows instead of the paper's data" in devs
    assert "1 of the paper's 9 tasks (prontoqa)" in devs  # its files are not in this data dir: generated
    assert any(d.startswith("prontoqa data: 500 questions made by the built-in generator") for d in devs)
    assert "tasks not in the paper: tiny" in devs and invalid_answer_deviation() in devs
    assert "tiny data: 2 made-up rows" in res.output
    rep = cli("report", str(out), "--output", str(tmp_path / "rep"), "--no-figures")
    assert rep.exit_code == 0 and "tiny data: 2 made-up rows" in rep.output


# -- Elo prior and invalid answers -------------------------------------------------------------------------------


def test_crossplay_runs_declare_the_elo_prior_and_invalid_verdicts():
    devs = deviations({"kind": "crossplay", "judge": "j", "options": {"rounds": 1}, "tasks": list(paper_tasks()[0])})
    assert devs == [elo_prior_deviation(), invalid_answer_deviation("crossplay")]
    assert "paper App. E: no prior" in devs[0] and "left out of the Elo fit" in devs[1]
    assert elo_prior_deviation(0) is None


def test_invalid_answers_are_declared_once_per_run():
    devs = deviations(RunConfig())
    assert [d for d in devs if "invalid" in d] == [invalid_answer_deviation()]
    assert devs[-1].startswith("accuracy is over valid judge answers; invalid (unparsed) answers are counted separately")


def test_elo_output_and_leaderboard_note_declare_the_prior(tmp_path):
    res = cli("elo", "--judge", "scripted:default", "--debaters", "scripted:default,scripted:default,delay=0",
              "--tasks", "boolq,mmlu", "--pairings", "4", "--bootstrap", "10", "--output", str(tmp_path / "elo"))
    assert res.exit_code == 0, res.output
    assert "deviations from the paper's Elo fit: Elo prior: 1 virtual drawn game(s)" in res.output
    assert json.loads((tmp_path / "elo" / "elo.json").read_text())["deviations"] == [elo_prior_deviation(1)]
    cfg = json.loads((tmp_path / "elo" / "crossplay" / "config.json").read_text())
    assert elo_prior_deviation() in cfg["deviations"] and "2 of the paper's 9 tasks (boolq, mmlu)" in cfg["deviations"]
    res = cli("elo", str(tmp_path / "elo" / "crossplay"), "--prior-games", "0", "--bootstrap", "10", "--output", str(tmp_path / "bare"))
    assert res.exit_code == 0 and "deviations from the paper's Elo fit: none" in res.output
    lb = cli("leaderboard", str(tmp_path / "elo" / "crossplay"), "--output", str(tmp_path / "lb"))
    assert lb.exit_code == 0, lb.output
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "Prior: 1 virtual drawn game(s) per pair of debaters that met" in md and "paper App. E: no prior" in md
    assert "paper App. E: no prior" in (tmp_path / "lb" / "index.html").read_text()


def test_a_suite_rejudge_declares_only_the_judges_settings(tmp_path, monkeypatch):
    """Re-judging imported transcripts (nyu-2023): the agent budgets, rounds and task subset are the
    source's, not this run's, so only the judge's own settings are declared."""
    if not (DATA / "quality" / "michael2023_debates").is_dir():
        pytest.skip("needs the NYU debates")
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "nyu"
    res = cli("judge", "--suite", "nyu-2023", "--judge", "scripted:default", "--limit", "2", "--output", str(out))
    assert res.exit_code == 0, res.output
    devs = json.loads((out / "config.json").read_text())["deviations"]
    assert any(d.startswith("judge temperature") for d in devs) and any(d.startswith("judge predict-mode") for d in devs)
    assert not any(d.startswith(("agent ", "best-of-N", "rounds", "1 of the paper's")) for d in devs), devs
    # how the source made the transcripts is declared as the source's, and no option of ours says otherwise
    assert any(d.startswith("source transcripts (Michael et al. 2023): interactive debate") for d in devs)
    opts = json.loads((out / "config.json").read_text())["options"]
    assert "judge_temperature" in opts and not {"rounds", "best_of_n", "answer_order", "thinking_max_tokens"} & set(opts)


def test_a_qa_run_declares_only_the_options_its_jobs_used():
    """QA runs no agent: its rounds, best-of-N, word limit and agent budgets are not its deviations;
    its judge's settings and its answer order are. A debate with the same options declares them all."""
    from oversight_bench.deviations import deviations, recorded_deviations

    opts = {**all_options_model()().model_dump(mode="json"), "rounds": 2, "answer_order": "random"}
    qa = deviations({"protocols": ["qa_without_article", "qa_with_article"], "options": opts, "tasks": ["boolq"]})
    assert not any(d.startswith(("agent ", "rounds", "best-of-N", "word limit")) for d in qa), qa
    assert any(d.startswith("judge temperature") for d in qa) and any(d.startswith("answer order random") for d in qa)
    debate = deviations({"protocols": ["debate"], "options": opts, "tasks": ["boolq"]})
    assert any(d.startswith("agent thinking budget") for d in debate) and "rounds 2 (paper 3)" in debate
    # a mixed run: its QA cells drop the lines of the options only its debates used
    mixed = {"protocols": ["qa_without_article", "debate"], "options": opts, "tasks": ["boolq"]}
    mixed["deviations"] = deviations(mixed)
    assert "rounds 2 (paper 3)" in recorded_deviations(mixed, "debate")
    cell = recorded_deviations(mixed, "qa_without_article")
    assert "rounds 2 (paper 3)" not in cell and not any(d.startswith("agent ") for d in cell)
    assert any(d.startswith("judge temperature") for d in cell)


def test_an_imported_store_declares_no_deviations():
    """The source of a suite holds others' transcripts and verdicts: no setting of ours made them."""
    from oversight_bench.deviations import recorded_deviations

    imported = {"judge": "human:nyu-2023", "options": all_options_model()().model_dump(mode="json"), "tasks": ["quality"],
                "import": {"kind": "nyu-debate"}}
    assert recorded_deviations(imported) == []
    assert recorded_deviations({k: v for k, v in imported.items() if k != "import"})  # the same config made here would
