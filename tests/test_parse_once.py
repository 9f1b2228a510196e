"""Parse once: a run's model specs are parsed and their options validated once, and the judge tool is
checked once; every later step uses the objects those steps made (issue 35, item 3)."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from model_adapters.scripted import ScriptedModel
from oversight_bench import hookimpl, models
from oversight_bench.judge_tools import JudgeTool
from oversight_bench.models import Spec, build_model, check_spec, judge_spec

from helpers import cli

JUDGE, AGENT = "scripted:default,logprobs=true,debias=true", "scripted:default,delay=0"


def _count_calls(monkeypatch, module, name: str) -> Counter:
    """Counts calls of `module.name` by their first argument, wherever a module holds the function
    (`from ... import name` binds it in the importer)."""
    real, calls = getattr(module, name), Counter()

    def counting(first, *args, **kwargs):
        calls[first if isinstance(first, str) else repr(first)] += 1
        return real(first, *args, **kwargs)

    counting.__wrapped__ = real
    for mod in list(sys.modules.values()):
        held = getattr(mod, name, None)
        # a module first imported while an earlier test counted holds that test's counter: count here too
        if held is real or getattr(held, "__wrapped__", None) is real:
            monkeypatch.setattr(mod, name, counting)
    return calls


def _count_validations(monkeypatch) -> list[dict]:
    """The option sets the scripted backend's `Options` validates."""
    seen: list[dict] = []
    real = ScriptedModel.Options.model_validate.__func__

    def counting(cls, obj, *args, **kwargs):
        seen.append(dict(obj))
        return real(cls, obj, *args, **kwargs)

    monkeypatch.setattr(ScriptedModel.Options, "model_validate", classmethod(counting))
    return seen


def test_a_run_parses_and_validates_each_model_spec_once(tmp_path, monkeypatch):
    parsed = _count_calls(monkeypatch, models, "parse_spec")
    validated = _count_validations(monkeypatch)
    res = cli("run", "--judge", JUDGE, "--agent", AGENT, "--tasks", "prontoqa", "--limit", "2",
              "--protocols", "qa_without_article,debate", "--output", str(tmp_path / "run"), "--quiet")
    assert res.exit_code == 0, res.output
    assert parsed == {JUDGE: 1, AGENT: 1}  # no later step parses a spec again, nor one rebuilt as text
    # once each: the judge's without debias (a judging strategy, not a backend option), then the agent's
    assert validated == [{"logprobs": True}, {"delay": 0}]


def test_a_checked_spec_travels_as_it_is():
    spec = judge_spec(JUDGE)
    assert spec.debias and "debias" not in spec.options and not spec.checked
    assert check_spec(spec) is spec and spec.checked and spec.validated.logprobs is True
    model = build_model(spec)
    assert model.spec is spec and model.capabilities.logprobs  # the adapter read the validated options
    assert judge_spec(spec) is spec  # nothing left to take off
    assert spec == Spec("scripted", "default", {"logprobs": True})  # validation and debias are no part of its identity


class Everywhere(JudgeTool):
    name = "everywhere"
    label = "nothing at all"
    tasks = ("prontoqa", "quality", "boolq", "mmlu")  # a run's task, and the stored fixture run's (tests/fake_runs.py)

    def run(self, question, answers):
        return ("-", "-")


class EverywherePlugin:
    @hookimpl
    def register_judge_tools(self, register):
        register(Everywhere())


@pytest.fixture
def everywhere_tool(monkeypatch):
    """The tool, registered again whenever the CLI resets the registry."""
    from oversight_bench import registry

    real_reset = registry.reset_registry

    def reset() -> None:
        real_reset()
        registry.get_registry().add_module_plugin("everywhere", "test-everywhere-tool", "0", module=EverywherePlugin())

    monkeypatch.setattr(registry, "reset_registry", reset)
    yield
    real_reset()


def test_the_judge_tool_is_checked_once_and_that_tool_runs(tmp_path, monkeypatch, everywhere_tool):
    from oversight_bench import judge_tools

    checked = _count_calls(monkeypatch, judge_tools, "check_judge_tool")
    looked_up = _count_calls(monkeypatch, judge_tools, "get_judge_tool")
    res = cli("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "prontoqa", "--limit", "2",
              "--protocols", "qa_without_article,debate", "-o", "judge_tool=everywhere",
              "--output", str(tmp_path / "run"), "--quiet")
    assert res.exit_code == 0, res.output
    assert checked == {"everywhere": 1} and looked_up == {"everywhere": 1}  # the scheduler runs the tool the check gave


def test_a_suite_parses_its_judge_and_makes_its_judging_options_once(tmp_path, monkeypatch):
    from fake_runs import make_run
    from oversight_bench.rundir import StoredRun

    run = make_run(tmp_path / "stored", n_questions=2, judge="sim:judge-a")
    parsed = _count_calls(monkeypatch, models, "parse_spec")
    made, real = [], StoredRun.options

    def options(self, overrides=None, protocols=None):
        if overrides:  # the judging's options (the source's own, without overrides, decide what is re-judgeable)
            made.append(dict(overrides))
        return real(self, overrides, protocols)

    monkeypatch.setattr(StoredRun, "options", options)
    res = cli("judge", "--suite", str(run), "--judge", JUDGE, "-o", "few_shot=0", "--output", str(tmp_path / "judged"),
              "--quiet")
    assert res.exit_code == 0, res.output
    assert parsed == {JUDGE: 1} and made == [{"few_shot": 0}]


def test_a_suite_checks_its_judge_tool_once_before_it_builds_the_judge(tmp_path, monkeypatch, everywhere_tool):
    from fake_runs import make_run
    from oversight_bench import judge_tools, suites

    run = make_run(tmp_path / "stored", n_questions=2, judge="sim:judge-a")
    checked = _count_calls(monkeypatch, judge_tools, "check_judge_tool")
    looked_up = _count_calls(monkeypatch, judge_tools, "get_judge_tool")
    order: list[str] = []
    real_context = suites.check_context

    def context(*args, **kwargs):
        order.append(f"context after {sum(checked.values())} check(s)")
        return real_context(*args, **kwargs)

    monkeypatch.setattr(suites, "check_context", context)
    res = cli("judge", "--suite", str(run), "--judge", JUDGE, "-o", "judge_tool=everywhere",
              "--output", str(tmp_path / "judged"), "--quiet")
    assert res.exit_code == 0, res.output
    assert checked == {"everywhere": 1} and looked_up == {"everywhere": 1}  # the re-judging runs the tool the check gave
    assert order == ["context after 1 check(s)"]  # a bad tool is said before the judge model is built


def test_elo_parses_each_debater_and_its_judge_once(tmp_path, monkeypatch):
    parsed = _count_calls(monkeypatch, models, "parse_spec")
    validated = _count_validations(monkeypatch)
    res = cli("elo", "--judge", JUDGE, "--debaters", "scripted:default,scripted:default,best_of_n=2,scripted:default,delay=0",
              "--tasks", "boolq", "--pairings", "2", "--bootstrap", "10", "--output", str(tmp_path / "elo"))
    assert res.exit_code == 0, res.output
    assert parsed == {JUDGE: 1, "scripted:default": 1, "scripted:default,best_of_n=2": 1, "scripted:default,delay=0": 1}
    # the judge's, then each base model's once (the plain and the best-of-2 player share one)
    assert validated == [{"logprobs": True}, {}, {"delay": 0}]


@pytest.mark.parametrize("command", ["report", "leaderboard"])
def test_the_stance_checker_spec_is_parsed_once(tmp_path, monkeypatch, command):
    """`report --stance-check SPEC` (and `leaderboard`'s): the command checks SPEC into a Spec; the
    report, the StanceChecker and the checker model it builds take that Spec, never the text again."""
    from fake_runs import make_run
    from test_stance import make_quality_run  # registers the scripted stance-checker

    run = make_quality_run(tmp_path / "run")
    cal = make_run(tmp_path / "cal", n_questions=2)
    checker = "scripted:stance-checker,delay=0"
    parsed = _count_calls(monkeypatch, models, "parse_spec")
    validated = _count_validations(monkeypatch)
    extra = ["--no-figures"] if command == "report" else []
    res = cli(command, str(run), "--output", str(tmp_path / "out"), *extra,
              "--stance-check", checker, "--stance-calibration", str(cal))
    assert res.exit_code == 0, res.output
    assert parsed[checker] == 1, parsed
    assert validated.count({"delay": 0}) == 1, validated
