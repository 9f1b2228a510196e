"""A broken or clashing plugin is one warning, never the tool's end (issue 33 item 5, issue 37 item 6):
`sys.exit()` at import, a hook that raises (even a one-line BenchError or SystemExit), a name another
package registered first, a protocol option declared differently, a run option that is taken: each
is caught for that plugin alone, named, shown in `list plugins`, and every command still works.
`OVERSIGHT_BENCH_PLUGINS=` selects which third-party plugins load."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from helpers import cli_subprocess
from oversight_bench import hookimpl
from oversight_bench.errors import BenchError
from oversight_bench.registry import Registry


def installed_plugin(root: Path, dist: str, module: str, source: str) -> dict[str, str]:
    """A plugin package as pip would leave it (a dist-info with the entry point), on PYTHONPATH."""
    info = root / f"{module}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[oversight_bench]\n{module.removeprefix('obench_')} = {module}\n")
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    return {"PYTHONPATH": str(root)}


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:") or "Traceback" in line]


@pytest.mark.parametrize("source, expected", [
    ("import sys\nsys.exit(3)\n", "BROKEN: SystemExit: 3"),
    ("""
     from oversight_bench import hookimpl
     from oversight_bench.api import BenchError

     @hookimpl
     def register_protocols(register):
         raise BenchError("one line from the plugin")
     """, "BROKEN: register_protocols failed: BenchError: one line from the plugin"),
    ("""
     import sys
     from oversight_bench import hookimpl

     @hookimpl
     def register_tasks(register):
         sys.exit("bye")
     """, "BROKEN: register_tasks failed: SystemExit: bye"),
    ("""
     from oversight_bench import hookimpl

     @hookimpl
     def register_run_options(add):
         add("--rounds", type=int)
     """, "BROKEN: register_run_options failed: BenchError: a plugin's option --rounds is already an option of `run`"),
    ("""
     from oversight_bench import hookimpl

     @hookimpl
     def register_commands(cli):
         raise RuntimeError("cannot add")
     """, "BROKEN: register_commands failed: RuntimeError: cannot add"),
], ids=["exit_at_import", "hook_bencherror", "hook_exit", "run_option_taken", "command_hook_raises"])
def test_a_broken_plugin_is_named_and_every_command_still_works(tmp_path, source, expected):
    env = installed_plugin(tmp_path / "site", "obench-broken", "obench_broken", source)
    listing = cli_subprocess("list", "plugins", env=env)
    assert listing.returncode == 0, listing.stderr
    line = next(l for l in listing.stdout.splitlines() if "obench-broken" in l)
    assert expected in line, listing.stdout
    assert re.search(r"warning: plugin broken \(obench-broken 0\.1\) failed to load", listing.stderr), listing.stderr
    for args in (["list", "protocols"], ["run", "--help"], ["list", "tasks"]):
        res = cli_subprocess(*args, env=env)
        assert res.returncode == 0 and not _errors(res.stderr), (args, res.stderr)
    res = cli_subprocess("run", "--help", env=env)
    assert "--rounds" in res.stdout


CLASH = """
    from oversight_bench import hookimpl
    from oversight_bench.api import CommonOptions, Decision, Protocol, option

    class Base(Protocol):
        async def play(self, ctx, job):
            return []

        async def judge(self, ctx, job, turns):
            return Decision("", None, None)

    class Debate(Base):
        name = "debate"

    class Mine(Base):
        name = "clash_ok"

    class RoundsAsText(CommonOptions):
        rounds: str = option("three", "three", "rounds {v}")

    class Wordy(Base):
        name = "wordy"
        Options = RoundsAsText

    @hookimpl
    def register_protocols(register):
        register(Debate())
        register(Mine())
        register(Wordy())
"""


def test_a_clash_skips_the_clashing_registration_and_the_built_in_keeps_the_name(tmp_path):
    env = installed_plugin(tmp_path / "site", "obench-clash", "obench_clash", CLASH)
    res = cli_subprocess("list", "protocols", env=env)
    assert res.returncode == 0, res.stderr
    lines = {l.split()[0]: l for l in res.stdout.splitlines() if l.strip()}
    assert "oversight-bench" in lines["debate"]  # found first on the path, the third party still does not take it
    assert "clash_ok" in lines and "wordy" not in lines  # its other registration stands; the option clash is skipped
    warnings = [l for l in res.stderr.splitlines() if l.startswith("warning:")]
    assert len(warnings) == 1, res.stderr  # one plugin, one warning (issue 37): both skips in it
    assert ("warning: protocol 'debate' of obench-clash (plugin clash) skipped: oversight-bench registers that name "
            "already; ") in warnings[0]
    assert "protocol 'wordy' of obench-clash (plugin clash) skipped: its option 'rounds' is declared differently by " \
           "protocol" in warnings[0] and "of oversight-bench" in warnings[0]
    listing = cli_subprocess("list", "plugins", env=env)
    assert listing.returncode == 0
    assert "SKIPPED: protocol 'debate' of obench-clash" in listing.stdout
    assert "SKIPPED: protocol 'wordy' of obench-clash" in listing.stdout
    # every command works; the run's debate is the built-in one
    out = tmp_path / "run"
    res = cli_subprocess("run", "--tasks", "capitals", "--protocols", "debate,clash_ok", "--judge", "scripted:default",
                         "--agent", "scripted:default", "--limit", "1", "--rounds", "1", "--best-of-n", "1",
                         "--answer-order", "random", "--quiet", "--output", str(out), env=env)
    assert res.returncode == 0, res.stderr


def test_the_plugins_variable_selects_third_party_plugins(tmp_path):
    env = installed_plugin(tmp_path / "site", "obench-clash", "obench_clash", CLASH)
    none = cli_subprocess("list", "plugins", env={**env, "OVERSIGHT_BENCH_PLUGINS": ""})
    assert none.returncode == 0 and "obench-clash" not in none.stdout and "warning" not in none.stderr
    assert "oversight-bench" in none.stdout  # the built-ins always load
    only = cli_subprocess("list", "protocols", env={**env, "OVERSIGHT_BENCH_PLUGINS": "obench-clash"})
    assert "clash_ok" in only.stdout and "qa_majority" not in only.stdout


def test_in_process_a_clash_is_recorded_not_raised():
    class P:
        name = "debate"

    class A:
        register_protocols = staticmethod(hookimpl(lambda register: register(P())))

    class B:
        register_protocols = staticmethod(hookimpl(lambda register: register(P())))

    reg = Registry()
    reg.add_module_plugin("a", "pkg-a", "1", module=A)
    reg.add_module_plugin("b", "pkg-b", "1", module=B)
    assert reg.entries["protocols"]["debate"].package == "pkg-a"
    assert reg.plugins[1].skipped == ["protocol 'debate' of pkg-b (plugin b) skipped: pkg-a registers that name already"]
    assert not reg.broken()

    class C:
        @staticmethod
        @hookimpl
        def register_loaders(register):
            raise BenchError("bad")

    reg.add_module_plugin("c", "pkg-c", "1", module=C)
    assert reg.broken()[0].error == "register_loaders failed: BenchError: bad"


def _no_name_plugin(root: Path, source: str) -> dict[str, str]:
    """A plugin whose distribution metadata has no Name (nor Version)."""
    env = installed_plugin(root, "obench-noname", "obench_noname", source)
    (root / "obench_noname-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\n")
    return env


@pytest.mark.parametrize("source, expected", [
    ("raise KeyboardInterrupt\n", "BROKEN: KeyboardInterrupt"),  # P-03: raised by the plugin, no Ctrl-C
    ("class Boom(BaseException):\n    pass\n\nraise Boom('at import')\n", "BROKEN: Boom: at import"),
    ("""
     from oversight_bench import hookimpl

     class Boom(BaseException):
         pass

     @hookimpl
     def register_tasks(register):
         raise Boom("in a hook")
     """, "BROKEN: register_tasks failed: Boom: in a hook"),  # P-30
    ("""
     from oversight_bench import hookimpl

     class Weird(Exception):
         def __str__(self):
             raise RuntimeError("no message")

     @hookimpl
     def register_protocols(register):
         raise Weird()
     """, "BROKEN: register_protocols failed: Weird: (its message cannot be shown)"),
], ids=["keyboard_interrupt_at_import", "base_exception_at_import", "base_exception_in_hook", "unprintable_error"])
def test_a_plugin_raising_any_base_exception_is_one_warning(tmp_path, source, expected):
    """P-03, P-30: KeyboardInterrupt the plugin raises itself, or any BaseException subclass, at
    import or in a hook: that plugin is BROKEN (named, one warning), and every command works."""
    env = installed_plugin(tmp_path / "site", "obench-broken", "obench_broken", source)
    listing = cli_subprocess("list", "plugins", env=env)
    assert listing.returncode == 0, listing.stderr
    line = next(l for l in listing.stdout.splitlines() if "obench-broken" in l)
    assert expected in line, listing.stdout
    warnings = [l for l in listing.stderr.splitlines() if l.strip()]
    assert len(warnings) == 1 and warnings[0].startswith("warning: plugin broken (obench-broken 0.1)"), listing.stderr
    res = cli_subprocess("list", "protocols", env=env)
    assert res.returncode == 0 and "debate" in res.stdout and not _errors(res.stderr), res.stderr


def test_a_plugin_without_a_distribution_name_is_listed_by_its_module(tmp_path):
    """P-23: METADATA without Name or Version (None from importlib.metadata): the plugin loads (or
    is BROKEN) under its module's name and "?", and no command ends for it."""
    env = _no_name_plugin(tmp_path / "site", "raise RuntimeError('and broken too')\n")
    listing = cli_subprocess("list", "plugins", env=env)
    assert listing.returncode == 0 and "Traceback" not in listing.stderr, listing.stderr
    line = next(l for l in listing.stdout.splitlines() if "obench_noname" in l)
    assert "?" in line and "BROKEN: RuntimeError: and broken too" in line, line
    res = cli_subprocess("list", "protocols", env=env)
    assert res.returncode == 0 and "debate" in res.stdout, res.stderr


def test_a_plugin_cannot_replace_a_built_in_command(tmp_path):
    """P-18: a plugin's register_commands adding `run` (by decorator, add_command or writing
    cli.commands) leaves the built-in `run`; the plugin is named in one warning and its own new
    command before the clash stands."""
    env = installed_plugin(tmp_path / "site", "obench-takeover", "obench_takeover", """
        import click
        from oversight_bench import hookimpl

        @hookimpl
        def register_commands(cli):
            @cli.command(name="hello")
            def hello():
                click.echo("hello from the plugin")

            @cli.command(name="run")
            def run():
                click.echo("HIJACKED")
        """)
    res = cli_subprocess("run", "--help", env=env)
    assert res.returncode == 0 and "HIJACKED" not in res.stdout and "--judge" in res.stdout, res.stdout + res.stderr
    assert "plugin takeover (obench-takeover 0.1) failed to load: register_commands failed: BenchError: a plugin's " \
           "command 'run' is already a command of oversight-bench" in res.stderr, res.stderr
    hello = cli_subprocess("hello", env=env)
    assert hello.returncode == 0 and "hello from the plugin" in hello.stdout
    direct = installed_plugin(tmp_path / "site2", "obench-direct", "obench_direct", """
        import click
        from oversight_bench import hookimpl

        @hookimpl
        def register_commands(cli):
            cli.commands["run"] = click.Command("run", callback=lambda: click.echo("HIJACKED"))
            cli.commands.pop("export")
        """)
    res = cli_subprocess("run", "--help", env=direct)
    assert res.returncode == 0 and "HIJACKED" not in res.stdout and "--judge" in res.stdout, res.stdout + res.stderr
    # one warning naming the plugin and both commands (it said "a plugin", a line per command, before)
    assert res.stderr.splitlines() == ["warning: commands 'run', 'export' of obench-direct (plugin direct) skipped: it "
                                       "replaced or removed the built-in ones, which are kept"], res.stderr
    assert cli_subprocess("export", "--help", env=direct).returncode == 0


def test_plugin_noise_on_stdout_does_not_reach_a_commands_output(tmp_path):
    """P-22: a plugin printing at import and in its hooks: `export`'s stdout is JSON lines only (the
    noise goes to stderr)."""
    import json

    from fake_runs import make_run

    run = make_run(tmp_path / "run", n_questions=1)
    env = installed_plugin(tmp_path / "site", "obench-noisy", "obench_noisy", """
        import sys
        from oversight_bench import hookimpl

        print("NOISE at import")
        sys.stdout.write("more noise\\n")

        @hookimpl
        def register_commands(cli):
            print("NOISE in a hook")
        """)
    res = cli_subprocess("export", str(run), env=env)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines and all(isinstance(json.loads(l), dict) for l in lines), res.stdout[:500]
    assert "NOISE at import" in res.stderr and "NOISE in a hook" in res.stderr


def test_a_registration_whose_name_is_no_plain_name_is_skipped():
    """Probe P19: a task named 42 (an int: sorting the names then fails) or "evil\\nname" (two lines
    in every listing) is skipped with one line naming the plugin; its other registrations stand."""
    class T:
        task_type = "closed"

        def __init__(self, name):
            self.name = name

    class Odd:
        @staticmethod
        @hookimpl
        def register_tasks(register):
            register(T(42))
            register(T("evil\nname"))
            register(T(None))
            register(T("fine_task"))

    reg = Registry()
    reg.add_module_plugin("odd", "pkg-odd", "1", module=Odd)
    assert "fine_task" in reg.names("tasks") and 42 not in reg.entries["tasks"] and "evil\nname" not in reg.entries["tasks"]
    assert [line.split(" skipped")[0] for line in reg.plugins[0].skipped] == [
        "task '42' of pkg-odd (plugin odd)", "task 'evil\\nname' of pkg-odd (plugin odd)", "task 'None' of pkg-odd (plugin odd)"]
    assert not reg.broken() and reg.names("tasks") == sorted(reg.names("tasks"))


def test_a_plugins_keyboard_interrupt_is_its_own_when_sigint_is_ignored(tmp_path):
    """A background or nohup job starts with SIGINT ignored, so no Ctrl-C can reach it: a
    KeyboardInterrupt at import is still the plugin's failure, not a reason to stop the tool (it
    was exit 130, 'interrupted', when the fast lane ran as a background job)."""
    import signal
    import subprocess

    from helpers import cli_popen

    env = installed_plugin(tmp_path / "site", "obench-broken", "obench_broken", "raise KeyboardInterrupt\n")
    proc = cli_popen("list", "plugins", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "BROKEN" in next(l for l in out.splitlines() if "obench-broken" in l), out


UNREADABLE = """
    from oversight_bench import hookimpl
    from oversight_bench.api import Decision, Protocol

    class Base(Protocol):
        async def play(self, ctx, job):
            return []

        async def judge(self, ctx, job, turns):
            return Decision("", None, None)

    class Broken(Base):
        name = "bad_props"

        @property
        def description(self):
            raise RuntimeError("description boom")

    class Fine(Base):
        name = "fine_proto"
        description = "still listed"

    class Raising:
        def __init__(self, name):
            self.name = name

        def __getattr__(self, key):
            raise RuntimeError(f"{key} boom")

    @hookimpl
    def register_protocols(register):
        register(Broken())
        register(Fine())

    @hookimpl
    def register_tasks(register):
        register(Raising("bad_task"))

    @hookimpl
    def register_suites(register):
        register(Raising("bad_suite"))

    @hookimpl
    def register_judge_tools(register):
        register(Raising("bad_tool"))
"""


def test_an_object_whose_attributes_raise_is_skipped_when_it_registers(tmp_path):
    """Issue 37 (probe 608, 613, 614): a protocol whose `description`, a task, suite or judge tool
    whose every attribute raises ended `list protocols|tasks|suites` (and a run sorting the tasks) in a
    traceback. Each is skipped as it registers, all four said in the plugin's one warning; the
    plugin's other protocol stands and every listing works."""
    env = installed_plugin(tmp_path / "site", "obench-props", "obench_props", UNREADABLE)
    listing = cli_subprocess("list", "plugins", env=env)
    assert listing.returncode == 0 and "Traceback" not in listing.stderr, listing.stderr
    warnings = [l for l in listing.stderr.splitlines() if l.strip()]
    assert len(warnings) == 1, listing.stderr
    for what in ("protocol 'bad_props'", "task 'bad_task'", "suite 'bad_suite'", "judge_tool 'bad_tool'"):
        assert f"{what} of obench-props (plugin props) skipped: reading its" in warnings[0], warnings[0]
        assert f"SKIPPED: {what} of obench-props" in listing.stdout
    assert "RuntimeError: description boom" in warnings[0]
    for what, shown in (("protocols", "fine_proto"), ("tasks", "arith"), ("suites", "")):
        res = cli_subprocess("list", what, env=env)
        assert res.returncode == 0 and "Traceback" not in res.stderr, (what, res.stderr)
        assert shown in res.stdout and "bad_" not in res.stdout, (what, res.stdout)
        assert len([l for l in res.stderr.splitlines() if "obench-props" in l]) == 1, (what, res.stderr)


LATE = """
    from oversight_bench import hookimpl
    from oversight_bench.api import Decision, Protocol

    class Flaky(Protocol):
        name = "flaky_proto"
        reads = 0

        @property
        def description(self):  # read once as it registers, then it raises
            Flaky.reads += 1
            if Flaky.reads > 1:
                raise RuntimeError("description boom sk-abcdefghijklmnopqrstuvwx123456")
            return "fine at first"

        async def play(self, ctx, job):
            return []

        async def judge(self, ctx, job, turns):
            return Decision("", None, None)

    class Gone:
        name = "gone_suite"
        version = "1"
        description = "its data is gone"
        source = "nowhere"

        def materialize(self):
            raise FileNotFoundError("/data/gone.csv")

    class Uncountable:
        name = "uncountable"
        task_type = "closed"

        def available(self, folder):
            raise RuntimeError("count boom")

    @hookimpl
    def register_protocols(register):
        register(Flaky())

    @hookimpl
    def register_suites(register):
        register(Gone())

    @hookimpl
    def register_tasks(register):
        register(Uncountable())
"""


@pytest.mark.parametrize("what, broken, kept, error", [
    ("protocols", "flaky_proto", "debate", "RuntimeError: description boom"),
    ("suites", "gone_suite", None, "FileNotFoundError: /data/gone.csv"),
    ("tasks", "uncountable", "arith", "RuntimeError: count boom"),
])
def test_an_entry_that_raises_while_listed_is_one_broken_line(tmp_path, what, broken, kept, error):
    """Issue 37 (probe 608, 613): what raises only when an entry's line is made (a suite whose data
    is gone, a task's count, a property that fails later) ended the listing in a traceback. That
    entry's line says BROKEN with its package and the error (redacted), one warning names it, and
    the others are listed."""
    env = installed_plugin(tmp_path / "site", "obench-late", "obench_late", LATE)
    res = cli_subprocess("list", what, env=env)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    line = next(l for l in res.stdout.splitlines() if l.startswith(broken))
    assert f"BROKEN (obench-late 0.1): {error}" in line, line
    warnings = [l for l in res.stderr.splitlines() if "obench-late" in l]
    assert len(warnings) == 1 and f"{broken!r} of obench-late 0.1 is broken: {error}" in warnings[0], res.stderr
    assert "sk-abcdefghijklmnopqrstuvwx123456" not in res.stdout + res.stderr
    if kept:
        assert any(l.startswith(kept) for l in res.stdout.splitlines()), res.stdout


def test_a_judge_tool_that_raises_when_asked_is_one_line(tmp_path):
    """Issue 37 (probe 616): a judge tool whose `supports` raises ended `run -o judge_tool=NAME` in a
    traceback; it is one line naming the tool, its package and the error, exit 2, before anything
    is written."""
    env = installed_plugin(tmp_path / "site", "obench-tool", "obench_tool", """
        from oversight_bench import hookimpl
        from oversight_bench.api import JudgeTool

        class Tool(JudgeTool):
            name = "raising_tool"
            label = "a tool that raises"

            def supports(self, task):
                raise RuntimeError("tool supports boom")

            def run(self, question, answers):
                return ("", "")

        @hookimpl
        def register_judge_tools(register):
            register(Tool())
        """)
    out = tmp_path / "run"
    res = cli_subprocess("run", "--judge", "scripted:default", "--tasks", "arith", "--protocols", "qa_without_article",
                         "--limit", "1", "--output", str(out), "--quiet", "-o", "judge_tool=raising_tool", env=env)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == [
        "error: judge tool 'raising_tool' of obench-tool 0.1 is broken: RuntimeError: tool supports boom; fix or "
        "uninstall its plugin, or drop -o judge_tool"], res.stderr
    assert not (out / "results.sqlite").exists()


@pytest.mark.parametrize("source, parts", [
    ("""
     from oversight_bench import hookimpl

     @hookimpl
     def register_models(register):
         register("scripted", object)
         raise RuntimeError("models boom")
     """, ["failed to load: register_models failed: RuntimeError: models boom",
           "model 'scripted' of obench-many (plugin many) skipped: oversight-bench registers that name already"]),
    ("""
     import click
     from oversight_bench import hookimpl

     @hookimpl
     def register_commands(cli):
         cli.commands["run"] = click.Command("run", callback=lambda: print("HIJACKED"))
         del cli.commands["list"]
         raise RuntimeError("and then it fails")
     """, ["failed to load: register_commands failed: RuntimeError: and then it fails",
           "commands 'run', 'list' of obench-many (plugin many) skipped: it replaced or removed the built-in ones, "
           "which are kept"]),
], ids=["clash_then_raise", "commands_replaced_then_raise"])
def test_a_plugin_that_does_several_wrong_things_is_one_warning(tmp_path, source, parts):
    """Issue 37 (probe 610, 612): a plugin that registered a taken name, or replaced built-in
    commands, and then raised gave two or three warning lines; it is one line with all of it, and
    `list plugins` shows it BROKEN with what was skipped."""
    env = installed_plugin(tmp_path / "site", "obench-many", "obench_many", source)
    for args in (["list", "plugins"], ["list", "protocols"]):
        res = cli_subprocess(*args, env=env)
        assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
        warnings = [l for l in res.stderr.splitlines() if l.strip()]
        assert len(warnings) == 1 and warnings[0].startswith("warning: plugin many (obench-many 0.1) failed to load"), \
            res.stderr
        assert all(p in warnings[0] for p in parts), warnings[0]
    listing = cli_subprocess("list", "plugins", env=env)
    assert f"SKIPPED: {parts[1]}" in listing.stdout and "BROKEN: " in listing.stdout, listing.stdout
