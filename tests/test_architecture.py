"""The architecture's rules: pluggy-driven hooks (validated, traced, one broken plugin reported), and CLI
subcommands and options added by plugins (the layering rule: tests/test_layering.py)."""

from __future__ import annotations


import click
import pytest
from click.testing import CliRunner

from oversight_bench import hookimpl
from oversight_bench.errors import BenchError
from oversight_bench.registry import Registry

from helpers import REPO, cli_subprocess

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


def test_core_defines_the_answer_orders_once():
    literal = '("correct_first", "correct_second")'
    where = [str(p.relative_to(REPO)) for pkg in ("oversight_bench", *PLUGIN_PACKAGES)
             for p in (REPO / pkg).rglob("*.py") if literal in p.read_text(encoding="utf-8")]
    assert where == ["oversight_bench/questions.py"]


def test_runner_knows_no_speaker_names_the_protocol_maps_them(tmp_path):
    """Cross-play debaters are picked through the protocol's speaker_slots, whatever the speakers are called."""
    import asyncio

    from model_adapters.scripted import ScriptedModel
    from oversight_bench.models import parse_spec
    from oversight_bench.protocol import Decision, Job, Protocol, ProtocolOptions
    from oversight_bench.questions import Question
    from oversight_bench.scheduler import JobContext, Scheduler
    from oversight_bench.rundir.store import Store

    assert "Alice" not in (REPO / "oversight_bench" / "scheduler.py").read_text()

    class ProCon(Protocol):
        name = "procon"
        speaker_slots = {"Pro": 0, "Con": 1}

        async def play(self, ctx, job):
            return []

        async def judge(self, ctx, job, turns):
            return Decision("", None, None)

    models = {n: ScriptedModel(parse_spec("scripted:default")) for n in ("judge", "x", "y")}
    store = Store.open(tmp_path / "run", write=True)
    try:
        runner = Scheduler(store, judge=models["judge"], agent=None, judge_name="j", agent_name="crossplay",
                        options=ProtocolOptions(best_of_n=1), seed=0, protocols={"procon": ProCon()},
                        debaters={"x": (models["x"], 1), "y": (models["y"], 3)})
        q = Question(id="1", task="t", task_type="closed", question="?", correct="a", incorrect="b")
        ctx = JobContext(runner, Job("procon", q, "correct_first", debaters=("x", "y")), ProCon())
        assert (ctx.best_of_n("Pro"), ctx.best_of_n("Con"), ctx.best_of_n("Judge")) == (1, 3, 1)
        asyncio.run(ctx.generate("agent", [{"role": "user", "content": "Argue."}], tag="t", speaker="Con"))
        assert [len(models[n].calls) for n in ("x", "y")] == [0, 1]
    finally:
        store.close()


def test_message_flattening_is_written_once():
    """llamacpp, hf, vllm and lm_eval flatten messages through model_adapters/_common.py only."""
    for name in ("llamacpp", "hf", "vllm_engine", "lm_eval_adapter"):
        src = (REPO / "model_adapters" / f"{name}.py").read_text()
        assert "text_of(" not in src and '"\\n\\n".join(' not in src, name
        assert "from model_adapters.messages import" in src, name


def test_load_plugins_names_are_normalised_and_builtins_stay():
    res = cli_subprocess("list", "protocols", env={"OVERSIGHT_BENCH_LOAD_PLUGINS": " Obench_Example.Plugin "})
    assert res.returncode == 0, res.stderr
    names = {line.split()[0] for line in res.stdout.splitlines()}
    assert {"debate", "consultancy"} <= names
    import importlib.metadata as md

    if any(ep.value == "obench_example_plugin" for ep in md.entry_points(group="oversight_bench")):
        assert "qa_majority" in names  # the third-party plugin named (in another spelling) loads
