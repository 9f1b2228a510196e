"""The architecture's rules: pluggy-driven hooks (validated, traced, one broken plugin reported), and CLI
subcommands and options added by plugins (the layering rule: tests/test_layering.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from oversight_bench import hookimpl
from oversight_bench.errors import BenchError
from oversight_bench.registry import Registry

from helpers import REPO, cli_subprocess, stored_records

PLUGIN_PACKAGES = ("task_configs", "protocol_plugins", "model_adapters")


def test_undecorated_function_is_not_a_hook():
    ran = []

    class Plain:  # a register_protocols without @hookimpl: pluggy ignores it
        @staticmethod
        def register_protocols(register):
            ran.append(True)

    reg = Registry()
    reg.add_module_plugin("plain", "pkg-plain", "1", module=Plain)
    assert ran == [] and reg.plugins[-1].hooks == [] and reg.plugins[-1].error is None


def test_hookimpl_with_wrong_arguments_is_rejected_by_pluggy():
    class Wrong:
        @staticmethod
        @hookimpl
        def register_protocols(registr):
            pass

    reg = Registry()
    reg.add_module_plugin("wrong", "pkg-wrong", "1", module=Wrong)
    assert "registr" in reg.plugins[-1].error


def test_one_broken_hook_is_reported_and_the_others_register():
    class Broken:
        @staticmethod
        @hookimpl
        def register_protocols(register):
            raise RuntimeError("boom")

    class Good:
        @staticmethod
        @hookimpl
        def register_loaders(register):
            register("csvish", lambda cfg, ctx: None)

    reg = Registry()
    reg.add_module_plugin("broken", "pkg-broken", "1", module=Broken)
    reg.add_module_plugin("good", "pkg-good", "1", module=Good)
    assert [p.name for p in reg.broken()] == ["broken"]
    assert "register_protocols failed: RuntimeError: boom" in reg.broken()[0].error
    assert reg.names("loaders") == ["csvish"]
    with pytest.raises(BenchError, match=r"unknown loader 'csvsh'; did you mean 'csvish'\?"):
        reg.get("loaders", "csvsh")


def test_register_commands_adds_subcommands_and_a_broken_one_is_not_fatal(capsys):
    class Commands:
        @staticmethod
        @hookimpl
        def register_commands(cli):
            @cli.command()
            def hello():
                click.echo("hello from a plugin")

    class BrokenCommands:
        @staticmethod
        @hookimpl
        def register_commands(cli):
            raise ImportError("needs missing_dependency")

    reg = Registry()
    reg.add_module_plugin("cmds", "pkg-cmds", "1", module=Commands)
    reg.add_module_plugin("bad", "pkg-bad", "1", module=BrokenCommands)
    group = click.Group()
    reg.call_each("register_commands", cli=group)
    assert CliRunner().invoke(group, ["hello"]).output == "hello from a plugin\n"
    assert "plugin bad (pkg-bad 1) failed to load: register_commands failed: ImportError" in capsys.readouterr().err


def test_register_run_options_adds_an_option_the_plugin_owns_to_the_task_commands():
    from oversight_bench.cli import BenchGroup

    seen = []
    group = BenchGroup()
    for name in ("run", "elo", "export"):
        group.add_command(click.Command(name, callback=lambda: click.echo("ran")))
    group.add_run_option("--shout", is_flag=True, callback=lambda ctx, param, value: seen.append(value))
    assert [c for c in ("run", "elo", "export") if any(p.name == "shout" for p in group.commands[c].params)] == ["run", "elo"]
    assert CliRunner().invoke(group, ["run", "--shout"]).output == "ran\n" and seen == [True]  # the command never sees it
    with pytest.raises(BenchError, match="--shout is already an option of `run`"):
        group.add_run_option("--shout", is_flag=True)


def test_builtin_commands_come_through_register_commands():
    res = cli_subprocess("build-task", "--help")
    assert res.returncode == 0 and "GSM8KQA" in res.stdout
    res = cli_subprocess("list", "plugins")
    tasks_line = [l for l in res.stdout.splitlines() if l.startswith("tasks")]
    assert tasks_line and "register_commands" in tasks_line[0] and "register_loaders" in tasks_line[0]


def test_trace_prints_every_hook_call():
    res = cli_subprocess("list", "models", env={"OVERSIGHT_BENCH_TRACE": "1"})
    assert res.returncode == 0, res.stderr
    for hook in ("register_tasks", "register_protocols", "register_models", "register_loaders", "register_commands"):
        assert f"oversight-bench hook: {hook}(" in res.stderr, hook
    assert "register_models(register=register) -> oversight-bench:models" in res.stderr
    quiet = cli_subprocess("list", "models")
    assert "oversight-bench hook" not in quiet.stderr


def test_every_planner_produces_the_answer_orders_questions_display(tmp_path):
    """Runs (both orders or one drawn), cross-play games and fake runs all produce the two orders `Question.answers`
    displays (it raises on any other), each with the correct answer where `correct_index` says."""
    from oversight_bench.crossplay import plan_games
    from fake_runs import make_run
    from oversight_bench.plans import answer_orders
    from oversight_bench.questions import ORDERS, Question, correct_index, other_order
    from oversight_bench.rundir.store import Store

    qs = [Question(id=str(i), task="t", task_type="closed", question="?", correct="right", incorrect="wrong")
          for i in range(16)]
    store = Store.open(make_run(tmp_path / "fake", n_questions=2))
    try:
        fake = {r["answer_order"] for r in stored_records(store, "decision")}
    finally:
        store.close()
    produced = {
        "run, both orders": {o for q in qs for o in answer_orders("both", 0, q)},
        "run, one drawn order": {o for q in qs for o in answer_orders("random", 0, q)},
        "cross-play": {g.answer_order for g in plan_games({"t": qs}, ["x", "y"], pairings=8, seed=0)},
        "fake runs": fake,
    }
    for where, orders in produced.items():
        assert orders == set(ORDERS), where
    for order in ORDERS:
        shown = qs[0].answers(order)
        assert shown[correct_index(order) - 1] == "right" and qs[0].answers(other_order(order)) == shown[::-1]


def test_the_scheduler_takes_speaker_names_from_the_protocol(tmp_path):
    """A protocol whose speakers are Pro and Con: cross-play routes each speaker to its slot's debater
    (model and best-of-N), the stored turns keep the names, and a judge re-judging the stored
    transcript is shown them, with no other debater name anywhere."""
    import asyncio

    from model_adapters.scripted import ScriptedModel
    from oversight_bench.models import parse_spec, text_of
    from oversight_bench.protocol import Decision, Job, Protocol, Turn
    from oversight_bench.protocol_options import all_options_model
    from oversight_bench.questions import Question
    from oversight_bench.scheduler import JobContext, Scheduler
    from oversight_bench.rundir.store import Store

    class ProCon(Protocol):
        name = "procon"
        speaker_slots = {"Pro": 0, "Con": 1}
        speakers = ("Pro", "Con", "Judge")

        async def play(self, ctx, job):
            turns = []
            for speaker, side in (("Pro", 1), ("Con", 2)):
                prompt = f"You are {speaker}. Thinking: plan. Argument: argue for answer {side}."
                text = (await ctx.generate("agent", [{"role": "user", "content": prompt}], tag=f"round1/{speaker}",
                                           speaker=speaker))[0]
                turns.append(Turn(1, "debater", speaker, text, f"{speaker} says: {text}", defends=side))
            return turns

        async def judge(self, ctx, job, turns):
            transcript = "\n".join(f"{t.speaker} (answer {t.defends}): {t.shown}" for t in turns)
            raw = (await ctx.generate("judge", [{"role": "user", "content": transcript + "\nAnswer: 1 or 2?"}],
                                      tag="judge"))[0]
            answer = int(raw[-1]) if raw[-1] in "12" else None
            return Decision(raw, answer, None if answer is None else answer == job.correct_index)

    models = {n: ScriptedModel(parse_spec("scripted:default")) for n in ("judge", "x", "y")}
    store = Store.open(tmp_path / "run", write=True)
    try:
        protocol = ProCon()
        runner = Scheduler(store, judge=models["judge"], agent=None, judge_name="j", agent_name="crossplay",
                           options=all_options_model()(best_of_n=1), seed=0, protocols={"procon": protocol},
                           debaters={"x": (models["x"], 1), "y": (models["y"], 3)})
        q = Question(id="1", task="t", task_type="closed", question="?", correct="a", incorrect="b")
        job = Job("procon", q, "correct_first", debaters=("x", "y"))
        ctx = JobContext(runner, job, protocol)
        assert (ctx.best_of_n("Pro"), ctx.best_of_n("Con"), ctx.best_of_n("Judge")) == (1, 3, 1)

        stats = asyncio.run(runner.run([(protocol, job, None)], total=1, workers=1))
        assert stats.jobs_done == 1, stats.errors
        assert [text_of(c["messages"][-1]["content"])[:10] for n in ("x", "y") for c in models[n].calls] == [
            "You are Pr", "You are Co"]  # Pro spoke through debater x, Con through y
        stored = list(stored_records(store, "turn"))
        assert [(t["speaker"], t["defends"]) for t in stored] == [("Pro", 1), ("Con", 2)]

        decisions = list(stored_records(store, "decision"))
    finally:
        store.close()
    rejudge = Store.open(tmp_path / "rejudge", write=True)  # another judge, from the stored turns
    try:
        other = ScriptedModel(parse_spec("scripted:default"))
        asyncio.run(Scheduler(rejudge, judge=other, agent=None, judge_name="j2", agent_name="crossplay",
                              options=all_options_model()(best_of_n=1), seed=0, protocols={"procon": protocol}
                              ).execute(protocol, job, [Turn.from_dict(t) for t in stored]))
    finally:
        rejudge.close()
    prompt = text_of(other.calls[-1]["messages"][-1]["content"])
    assert prompt.startswith("Pro (answer 1): Pro says: ") and "\nCon (answer 2): Con says: " in prompt
    assert prompt == text_of(models["judge"].calls[-1]["messages"][-1]["content"])
    assert not re.search(r"Alice|Bob|Debater|Consultant", prompt + json.dumps(stored) + json.dumps(decisions))


def test_load_plugins_names_are_normalised_and_builtins_stay():
    res = cli_subprocess("list", "protocols", env={"OVERSIGHT_BENCH_LOAD_PLUGINS": " Obench_Example.Plugin "})
    assert res.returncode == 0, res.stderr
    names = {line.split()[0] for line in res.stdout.splitlines()}
    assert {"debate", "consultancy"} <= names
    import importlib.metadata as md

    if any(ep.value == "obench_example_plugin" for ep in md.entry_points(group="oversight_bench")):
        assert "qa_majority" in names  # the third-party plugin named (in another spelling) loads
