"""The `oversight-bench` command line. User errors print one line and exit with status 2."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from oversight_bench import __version__
from oversight_bench.errors import BenchError, disk_full, terminal_line
from oversight_bench.flags import SHARED, shared_flags
from oversight_bench.redact import protect_process_output, redact_text
from oversight_bench.run_exit import finish_run

OPTION_FLAGS = {  # flag -> protocol option (`protocol_options`)
    "rounds": "rounds", "turn_style": "turn_style", "best_of_n": "best_of_n", "judge_mode": "judge_mode",
    "few_shot": "few_shot", "answer_order": "answer_order", "word_limit": "word_limit",
}


def _run_defaults() -> dict[str, str]:
    """The defaults `run --help` states that the installed plugins decide (models, tasks, protocols),
    and the protocol options' own, by name; computed only when help is shown."""
    from oversight_bench.config import RunConfig
    from oversight_bench.models import default_model
    from oversight_bench.protocol import default_protocols
    from oversight_bench.protocol_options import all_options_model
    from oversight_bench.tasks import default_tasks

    options = all_options_model()  # the common options and every installed protocol's own

    def text(value) -> str:
        return str(value).lower() if isinstance(value, bool) or value is None else str(value)

    out = {name: text(f.default) for name, f in options.model_fields.items()}
    out["output"] = RunConfig.model_fields["output"].default
    for key, get in (("judge", lambda: default_model("judge")), ("agent", lambda: default_model("agent")),
                     ("tasks", lambda: ", ".join(default_tasks())), ("protocols", lambda: ", ".join(default_protocols()))):
        try:
            out[key] = get() or "none"
        except BenchError as exc:
            out[key] = f"none ({exc})"
    out["other_options"] = ", ".join(f"{k}={out[k]}{_paper_note(k, options)}"
                                     for k in options.model_fields if k not in OPTION_FLAGS)
    return out


def _paper_note(key: str, options) -> str:
    """' (paper: ...)' where an option's default is not the paper's value."""
    from oversight_bench.protocol_options import NO_PAPER_VALUE, OUTSIDE_PAPER

    default, paper = options.model_fields[key].default, options.paper_value(key)
    if paper == default:
        return ""
    if paper == OUTSIDE_PAPER:
        return f" ({OUTSIDE_PAPER})"
    return " (paper: no cap)" if paper == NO_PAPER_VALUE else f" (paper: {str(paper).lower() if isinstance(paper, bool) else paper})"


def _lm_eval_model(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """lm-evaluation-harness's `--model NAME --model_args K=V,...`: one line naming the flags that do it here."""
    if value is not None:
        raise BenchError(f"--model and --model_args are lm-evaluation-harness's flags; here a model is one spec, backend:model[,key=value...] "
                         f"(its arguments after commas): --judge SPEC for the judge, --agent SPEC for debaters and "
                         f"consultants (`oversight-bench list models`)")


def _log_samples(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        click.echo("note: --log_samples is not needed: every call, turn and decision is always stored "
                   "(results.sqlite), and samples.jsonl beside results.json is written at the end of every run", err=True)


def lm_eval_flags(f):
    """lm-evaluation-harness's flags that have another name here, answered instead of refused as unknown."""
    f = click.option("--model", "--model_args", "--model-args", "lm_eval_model", hidden=True, expose_value=False,
                     callback=_lm_eval_model, help="lm-evaluation-harness's; here --judge SPEC and --agent SPEC")(f)
    return click.option("--log_samples", "--log-samples", "log_samples", is_flag=True, expose_value=False,
                        callback=_log_samples, help="accepted for lm-evaluation-harness's sake: samples are always "
                        "stored (results.sqlite, and samples.jsonl at the end of every run)")(f)


class DefaultOption(click.Option):
    """An option whose help names defaults the plugins decide, filled in (`{judge}`, `{rounds}`, ...
    from `_run_defaults`) only when help is shown, so a command that runs never pays for it."""

    def get_help_record(self, ctx):
        record = super().get_help_record(ctx)
        return record and (record[0], record[1].format_map(_run_defaults()))


#: the commands that load tasks, so take the options plugins add through `register_run_options`
TASK_COMMANDS = ("run", "elo")


class BenchGroup(click.Group):
    """Turns BenchError (and Ctrl-C) into one line on stderr instead of a traceback, and adds the
    plugins' subcommands and options (hooks `register_commands`, `register_run_options`) the first
    time a command is looked up."""

    _plugin_commands_added = False
    #: the core's own commands (set once this module has added them), which no plugin may replace or remove
    core_commands: dict[str, click.Command] = {}
    _adding_plugins = False

    def add_plugin_commands(self) -> None:
        if not self._plugin_commands_added:
            self._plugin_commands_added = True
            from oversight_bench.registry import get_registry

            def restore(info=None) -> None:  # a plugin that wrote `cli.commands[...]` directly: named
                taken = [name for name, command in self.core_commands.items() if self.commands.get(name) is not command]
                self.commands.update((name, self.core_commands[name]) for name in taken)
                if not taken:
                    return
                names = ", ".join(map(repr, taken))
                if info is None:
                    click.echo(f"warning: a plugin replaced or removed the command {names}; the built-in one is kept", err=True)
                else:  # said in the plugin's one warning
                    many = len(taken) > 1
                    info.skip(f"command{'s' * many} {names} of {info.package} (plugin {info.name}) skipped: it replaced "
                              f"or removed the built-in {'ones, which are' if many else 'one, which is'} kept")

            # one warning a plugin: what its load, its commands and its run options did wrong, said together
            registry = get_registry(warn=False)
            self._adding_plugins = True
            try:
                registry.call_each("register_commands", cli=self, after=restore, warn=False)
                self._adding_plugins = False
                restore()
                registry.call_each("register_run_options", add=self.add_run_option, warn=False)
            finally:
                self._adding_plugins = False
                registry.warn_new()

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """A plugin's command under a name the core's commands have is refused (which marks that plugin
        broken, named in one warning): `run` stays the built-in `run`."""
        taken = name or cmd.name
        if self._adding_plugins and taken in self.core_commands:
            raise BenchError(f"a plugin's command {taken!r} is already a command of oversight-bench")
        super().add_command(cmd, name)

    def add_run_option(self, *param_decls: str, **attrs) -> None:
        """Hook `register_run_options`: one plugin option on each command that loads tasks; one whose
        name another option has is refused whole (added to none), which marks that plugin broken."""
        commands = [self.commands[name] for name in TASK_COMMANDS if name in self.commands]
        options = [click.Option(param_decls, **{**attrs, "expose_value": False}) for _ in commands]
        for command, option in zip(commands, options):
            taken = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
            clash = sorted(taken & {*option.opts, *option.secondary_opts})
            if clash:
                raise BenchError(f"a plugin's option {clash[0]} is already an option of `{command.name}`")
        for command, option in zip(commands, options):
            command.params.append(option)

    def get_command(self, ctx, cmd_name):
        self.add_plugin_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx):
        try:
            self.add_plugin_commands()
        except BenchError as exc:  # --help runs before invoke: say it in one line, still list the core's
            click.echo(f"error: {terminal_line(exc)}", err=True)
        return super().list_commands(ctx)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BenchError as exc:
            click.echo(f"error: {terminal_line(redact_text(exc))}", err=True)  # one line, always
            sys.exit(2)
        except OSError as exc:  # a full disk while writing a report, a page or an export
            if not disk_full(exc):
                raise
            where = f"while writing {exc.filename}" if exc.filename else "while writing the output"
            click.echo(f"error: no space left on the device ({where}): free some space and run the same command again", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted: finished records are saved; run the same command again to resume", err=True)
            sys.exit(130)


@click.group(cls=BenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="oversight-bench")
def cli():
    """Benchmark scalable-oversight protocols: weak LLM judges, strong LLM debaters."""
    protect_process_output()  # no secret in logs, tracebacks or errors


@cli.command()
@shared_flags
@click.option("--judge", cls=DefaultOption, help="judge model spec, backend:model[,key=value...] or a model name "
              "(`list models`; default {judge}, judging as the paper's plain 0-shot judge; add ,debias=true "
              "for the position-debiased judge)")
@click.option("--agent", cls=DefaultOption, help="consultant/debater model spec (default {agent}); built only when a "
              "protocol uses an agent")
@click.option("--tasks", cls=DefaultOption, help="comma-separated tasks or groups: extractive, closed, multimodal, all "
              "(default {tasks}; `list tasks`)")
@click.option("--protocols", cls=DefaultOption, help="comma-separated protocols (default {protocols}; `list protocols`)")
@click.option("--limit", type=int, help="questions per task (default: the task's sample size, 128 as in the paper)")
@click.option("--output", "--output_path", "--output-path", "output", cls=DefaultOption,
              help="run directory, resumable (default {output})")
@click.option("--include-path", "--include_path", "include_path", multiple=True,
              help="extra folder of task YAML files, repeatable (default: none)")
@lm_eval_flags
@click.option("--rounds", type=int, cls=DefaultOption, help="debate/consultancy rounds (default {rounds}, the paper's)")
@click.option("--turn-style", type=click.Choice(["simultaneous", "sequential"]), cls=DefaultOption,
              help="debaters speak at once or in turn (default {turn_style}, the paper's)")
@click.option("--best-of-n", type=int, cls=DefaultOption,
              help="debater samples per turn, the most persuasive kept (default {best_of_n}, the paper's)")
@click.option("--judge-mode", type=click.Choice(["predict", "cot", "probs"]), cls=DefaultOption,
              help="predict (default {judge_mode}, the paper's), cot, or probs: the answer read from the "
                   "answer-token probabilities (needs logprobs)")
@click.option("--few-shot", type=int, cls=DefaultOption, help="judge few-shot examples (default {few_shot}, the paper's)")
@click.option("--answer-order", type=click.Choice(["random", "both"]), cls=DefaultOption,
              help="both orders per question or one at random (default {answer_order}, the paper's)")
@click.option("--word-limit", type=int, cls=DefaultOption, help="words per argument asked for in the prompt "
              "(default {word_limit}, the paper's); cut only with -o truncate_words=true")
@click.option("-o", "--option", "extra_options", multiple=True, cls=DefaultOption,
              help="any protocol option as KEY=VALUE, repeatable; besides the flags above, with their defaults: "
                   "{other_options}")
def run(config_path, judge, agent, tasks, protocols, limit, seed, output, data_dir, include_path, max_total_tokens,
        max_cost, concurrency, extra_options, cache_from, quiet, **option_flags):
    """Run protocols on tasks and write every call, turn and decision to the run directory.

    Defaults are the paper's main setting, but for the models, the tasks and the options marked
    "paper:" below; the summary (and config.json) lists every setting of a run that
    differs from the paper's."""
    from oversight_bench.config import expand_variants, load_run_config
    from oversight_bench.commands import list_lines, run_eval

    if tasks is not None and tasks.strip() == "list":  # lm-eval's `--tasks list`
        for line in list_lines("tasks", data_dir, include_path):
            click.echo(line)
        return

    opts = {OPTION_FLAGS[k]: v for k, v in option_flags.items() if v is not None}
    from oversight_bench.yamlio import parse_key_values

    given = parse_key_values(extra_options)
    both = sorted(set(opts) & set(given))  # `--rounds 2 -o rounds=3`: which was meant?
    if both:
        flag = next(f for f, k in OPTION_FLAGS.items() if k == both[0])
        raise BenchError(f"option {both[0]} is given both as --{flag.replace('_', '-')} and as -o {both[0]}=...; "
                         f"expected it once")
    opts.update(given)
    overrides = {"judge": judge, "agent": agent, "tasks": tasks, "protocols": protocols, "limit": limit,
                 "seed": seed, "output": output, "data_dir": data_dir, "include_path": include_path,
                 "concurrency": concurrency, "options": opts, "cache_from": cache_from, "max_total_tokens": max_total_tokens,
                 "max_cost": max_cost}
    config = load_run_config(config_path, overrides)
    variants = expand_variants(config)
    for i, one in enumerate(variants):  # an ablation preset runs each variant into <output>/<name>
        outcome = run_eval(one, progress=not quiet, log=lambda m: click.echo(redact_text(m), err=True))
        # `report` on the preset's folder reads every variant: say so after the last
        finish_run(outcome, report_command([config.output]) if i == len(variants) - 1 else None)


@cli.command()
@click.option("--from", "source", help="run directory whose transcripts to judge")
@click.option("--suite", help="transcript suite to judge (see `list suites`), compared with its original judges")
@click.option("--limit", type=int, help="--suite: judge only this many rooms (a seeded sample)")
@click.option("--skip-long", is_flag=True, help="--suite: skip (and count) rooms longer than the judge's context")
@click.option("--judge", required=True, help="the new judge's model spec")
@click.option("--as", "as_protocol", metavar="PROTOCOL", help="--from: judge the transcripts as this protocol, one derived "
              "from theirs (e.g. verified_evidence: a debate's verified quotes alone; `list protocols` names them); "
              "stored under its name, paired with the source's decisions per question by `report`")
@click.option("--output", "--output_path", "--output-path", "output", required=True, help="new run directory")
@click.option("--concurrency", type=int, help="in-flight calls of the judge (default: the backend's)")
@click.option("-o", "--option", "extra_options", multiple=True, help="judge option as KEY=VALUE (judge_mode, few_shot, judge_tool=NAME or none, ...)")
@click.option("--cache-from", multiple=True, help="run directory whose stored model calls to reuse (identical requests only; repeatable)")
@SHARED["max_total_tokens"]
@SHARED["max_cost"]
@click.option("--quiet", is_flag=True, help="no progress bar")
def judge(source, suite, limit, skip_long, judge, as_protocol, output, concurrency, extra_options, cache_from,
          max_total_tokens, max_cost, quiet):
    """Re-judge stored QA, debate and one-round consultancy transcripts with a new judge: judge calls only.
    With --as PROTOCOL, judge them as a protocol derived from theirs (a debate's verified quotes alone,
    or its quotes shown without the checker's marks)."""
    from oversight_bench.commands import rejudge

    if bool(source) == bool(suite):
        raise BenchError("judge: give exactly one of --from RUN_DIR or --suite NAME")
    if suite and as_protocol:
        raise BenchError("judge: --as applies to --from; to judge a suite's rooms as another protocol, give --from the "
                         "suite's imported run directory")
    if suite:
        _judge_suite(suite, judge, output, limit, skip_long, concurrency, extra_options, cache_from, quiet,
                     max_total_tokens, max_cost)
        return
    if limit is not None or skip_long:
        raise BenchError("judge: --limit and --skip-long apply to --suite only")
    from oversight_bench.yamlio import parse_key_values

    outcome = rejudge(source, judge, output, progress=not quiet, concurrency=concurrency,
                      option_overrides=parse_key_values(extra_options), cache_from=cache_from, as_protocol=as_protocol,
                      max_total_tokens=max_total_tokens, max_cost=max_cost)
    finish_run(outcome, report_command([source, output]))  # both judges on the same transcripts


def _judge_suite(suite, judge, output, limit, skip_long, concurrency, extra_options, cache_from, quiet,
                 max_total_tokens=None, max_cost=None) -> None:
    from oversight_bench.suites import evaluate_suite, format_result
    from oversight_bench.yamlio import parse_key_values

    outcome, result = evaluate_suite(suite, judge, output, limit=limit, skip_long=skip_long, progress=not quiet,
                                     concurrency=concurrency, option_overrides=parse_key_values(extra_options),
                                     log=lambda m: click.echo(m, err=True), cache_from=cache_from,
                                     max_total_tokens=max_total_tokens, max_cost=max_cost)
    if outcome.stats.jobs_failed or outcome.stats.budget_stop:
        finish_run(outcome)
    for line in format_result(result):
        click.echo(line)


def report_command(dirs: list[str]) -> str:
    """The `report` command for run directories, into reports/<name of the last one>."""
    name = Path(str(dirs[-1])).resolve().name or "report"
    return "oversight-bench report " + " ".join(shlex.quote(str(d)) for d in dirs) + " --output " + \
        shlex.quote(f"reports/{name}")


@cli.command(name="list")
@click.argument("what", type=click.Choice(["tasks", "protocols", "models", "plugins", "suites"]))
@click.option("--data-dir", help="tasks: count the questions in this dataset folder (default: $OVERSIGHT_BENCH_DATA "
              "or ../shared/datasets)")
@click.option("--include-path", "--include_path", "include_path", multiple=True,
              help="tasks: also the tasks of this folder of task YAML files")
def list_cmd(what, data_dir, include_path):
    """List tasks (with their questions on the current data), protocols, models (backends, and the
    named models with their install state and size), suites or plugins, with package and version."""
    from oversight_bench.commands import list_lines
    from oversight_bench.suites import list_lines as suite_lines

    if (data_dir or include_path) and what != "tasks":
        raise BenchError(f"list {what}: --data-dir and --include-path apply to `list tasks` only")
    def warn(message: str) -> None:
        click.echo(terminal_line(message), err=True)

    lines = suite_lines(warn) if what == "suites" else list_lines(what, data_dir, include_path, warn=warn)
    for line in lines:
        click.echo(line)


@cli.command()
@click.argument("directory")
@click.option("--preferences", is_flag=True, help="write preference pairs instead (prompt/chosen/rejected, TRL's "
              "conversational preference rows): best-of-N debater turns (picked sample vs each other sample) and "
              "judged debate rooms (the favoured side's arguments vs the other's); the run is only read")
@click.option("--pairs", type=click.Choice(["auto", "best-of-n", "rooms", "all"]), default="auto", show_default=True,
              help="--preferences: which pairs; auto = best-of-N turns, and rooms for debates without best-of-N turns")
@click.option("--inspect", "inspect_dir", metavar="DIR", default=None,
              help="write inspect_ai eval logs into DIR instead (one per judge · protocol · task cell; "
                   "`inspect view --log-dir DIR` opens them; needs the [inspect] extra)")
def export(directory, preferences, pairs, inspect_dir):
    """Write a run's records to stdout as JSONL (kind: call, turn or decision), or with --preferences
    its preference pairs (one JSON object a line; what was left out is counted on stderr), or with
    --inspect DIR inspect_ai eval logs."""
    if inspect_dir is not None:
        if preferences or pairs != "auto":
            raise BenchError("export: --inspect writes eval logs; --preferences and --pairs do not apply to it")
        from oversight_bench.end_of_run import summarize
        from oversight_bench.rundir.inspect_log import export_inspect

        written = export_inspect(directory, inspect_dir, summarize, log=lambda m: click.echo(m, err=True))
        click.echo(f"inspect logs: {len(written)} eval log(s) -> {inspect_dir}; open them with "
                   f"`inspect view --log-dir {inspect_dir}`", err=True)
        return
    if not preferences:
        if pairs != "auto":
            raise BenchError("export: --pairs applies to --preferences only")
        from oversight_bench.rundir import export_jsonl

        export_jsonl(directory, lambda line: sys.stdout.write(line + "\n"))
        return
    from oversight_bench.rundir import export_preferences

    counts = export_preferences(directory, lambda line: sys.stdout.write(line + "\n"), pairs=pairs)
    written = {k: v for k, v in counts.items() if k in ("best_of_n", "room")}
    left = {k: v for k, v in counts.items() if k not in written}
    click.echo(f"preference rows: {sum(written.values())} ({', '.join(f'{k} {v}' for k, v in sorted(written.items())) or 'none'})"
               + "".join(f"; {k}: {v}" for k, v in sorted(left.items())), err=True)


@click.command(name="salvage")
@click.argument("directory")
@click.option("--output", "--output_path", "--output-path", "output", required=True, help="new run directory")
def salvage(directory, output):
    """Copy every readable record of a damaged run into a fresh run directory."""
    from oversight_bench.rundir.salvage import salvage_run

    counts = salvage_run(directory, output)
    click.echo(f"salvaged into {output}: {counts['jobs']} job(s), {counts['calls']} call(s), {counts['questions']} "
               f"question(s); config.json {'copied' if counts['config'] else 'unreadable, not copied'}; "
               f"{counts['partial_jobs_dropped']} partial job(s) left for the resume to redo")
    for err in counts["errors"][:5]:
        click.echo(f"unreadable: {err}", err=True)


def _add_analysis_commands() -> None:
    """The core's analysis commands live in their own module; plugins add theirs by `register_commands`."""
    from oversight_bench.analysis_cli import elo, leaderboard, report

    for command in (report, leaderboard, elo, salvage):
        cli.add_command(command)


_add_analysis_commands()
cli.core_commands = dict(cli.commands)


def main():
    cli(prog_name="oversight-bench")


if __name__ == "__main__":
    main()
