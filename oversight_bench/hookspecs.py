"""Plugin hooks, validated by pluggy. A plugin implements any of them, each marked `@hookimpl`
(an undecorated function of the same name is not a hook and never runs).

Example (a third-party package with `[project.entry-points.oversight_bench] my = "my_pkg"`)::

    from oversight_bench import hookimpl

    @hookimpl
    def register_protocols(register):
        register(MyProtocol())

    @hookimpl
    def register_commands(cli):
        @cli.command()
        def hello():
            ...

`OVERSIGHT_BENCH_TRACE=1` prints every hook call to stderr.
"""

import pluggy

hookspec = pluggy.HookspecMarker("oversight_bench")
hookimpl = pluggy.HookimplMarker("oversight_bench")


@hookspec
def register_tasks(register):
    """Call register(task) for each task (an object with `.name`, `.task_type`, `.load(...)`)."""


@hookspec
def register_protocols(register):
    """Call register(protocol) for each protocol (an `oversight_bench.api.Protocol`; its options are its
    `Options`, a subclass of `api.CommonOptions`). A name another package registered first, or an option
    another protocol declares differently, is skipped with a warning (the plugin's other names stand)."""


@hookspec
def register_models(register):
    """Call register(backend_name, factory) where factory(spec: models.Spec) -> models.Model."""


@hookspec
def register_model_names(register):
    """Call register(models.ModelName(name, spec, default_for=(...))) for each model that may be
    named without its backend (`--judge NAME`); `default_for=("judge",)` makes it the judge of a run
    given none (the core names no model of its own)."""


@hookspec
def register_loaders(register):
    """Call register(name, fn) for each task source format: `fn(cfg, ctx) -> sources.Records`,
    found by the `loader:` a task YAML names. Import heavy code inside `fn`, not here."""


@hookspec
def register_commands(cli):
    """Add commands to the root click Group `cli` (e.g. `cli.add_command(serve)`), as simonw/llm does."""


@hookspec
def register_suites(register):
    """Call register(suite) for each transcript suite (`.name`, `.version`, `.description`, `.source`,
    `.materialize() -> run directory`; optionally `.faithful_arguments`: its arguments argue their
    assigned side faithfully, a stance checker's default calibration; see oversight_bench/suites.py)."""


@hookspec
def register_run_options(add):
    """Add a command-line option to every command that loads tasks (`run`, `elo`): call
    `add(*param_decls, **attrs)` with click.option's arguments, e.g.
    `add("--unsafe-exec", is_flag=True, is_eager=True, callback=enable, help=...)`.
    The value goes only to the option's `callback` (the command never receives it), so the plugin
    that adds an option owns what it does; a name another option already has is refused."""


@hookspec
def register_judge_tools(register):
    """Call register(tool) for each judge tool (an `oversight_bench.api.JudgeTool`: `.name`, `.label`,
    `.tasks`/`.supports(task)`, `.run(question, answers)` giving one short text per answer), which a
    run or re-judging turns on with `-o judge_tool=NAME`; the judge's prompt then shows that text
    under each answer, after the answers and the transcript (beyond the paper, declared)."""


@hookspec
def register_room_writers(register):
    """Call register(name, write) where write(run_dirs, folder, cells, back) writes the static room
    pages a leaderboard's cells link to into `folder` (cells: {cell id: {"title", "decisions":
    [[RUN_DIR, JUDGE, JOB_KEY], ...]}}, run folders relative to the folder above `folder`; `back`:
    {"link", "title"} every page links to) and returns {cell id: {"rooms": N, "missing": M, ...}}.
    `leaderboard` calls the first one registered (the viewer's, from `human_judging`), so the core
    names the rooms and a plugin draws them."""
