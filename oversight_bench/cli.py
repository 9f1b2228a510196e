"""The `oversight-bench` command line. User errors print one line and exit with status 2."""

from __future__ import annotations

import sys

import click

from oversight_bench import __version__
from oversight_bench.errors import BenchError, disk_full
from oversight_bench.flags import shared_flags
from oversight_bench.redact import protect_process_output, redact_text
from oversight_bench.yamlio import parse_key_values

OPTION_FLAGS = {  # flag -> ProtocolOptions field
    "rounds": "rounds", "turn_style": "turn_style", "best_of_n": "best_of_n", "judge_mode": "judge_mode",
    "few_shot": "few_shot", "answer_order": "answer_order", "word_limit": "word_limit",
}


#: the commands that load tasks, so take the options plugins add through `register_run_options`
TASK_COMMANDS = ("run", "elo")


class BenchGroup(click.Group):
    """Turns BenchError (and Ctrl-C) into one line on stderr instead of a traceback, and adds the
    plugins' subcommands and options (hooks `register_commands`, `register_run_options`) the first
    time a command is looked up."""

    _plugin_commands_added = False

    def add_plugin_commands(self) -> None:
        if not self._plugin_commands_added:
            self._plugin_commands_added = True
            from oversight_bench.registry import get_registry

            get_registry().call_each("register_commands", cli=self)
            get_registry().call_each("register_run_options", add=self.add_run_option)

    def add_run_option(self, *param_decls: str, **attrs) -> None:
        """Hook `register_run_options`: one plugin option on each command that loads tasks."""
        for name in TASK_COMMANDS:
            command = self.commands.get(name)
            if command is None:
                continue
            option = click.Option(param_decls, **{**attrs, "expose_value": False})
            taken = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
            clash = sorted(taken & {*option.opts, *option.secondary_opts})
            if clash:
                raise BenchError(f"a plugin's option {clash[0]} is already an option of `{name}`")
            command.params.append(option)

    def get_command(self, ctx, cmd_name):
        self.add_plugin_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx):
        try:
            self.add_plugin_commands()
        except BenchError as exc:  # --help runs before invoke: say it in one line, still list the core's
            click.echo(f"error: {exc}", err=True)
        return super().list_commands(ctx)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BenchError as exc:
            click.echo(f"error: {' '.join(redact_text(exc).splitlines())}", err=True)  # one line, always
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
@click.option("--judge", help="judge model spec, backend:model[,key=value...] or a model name (default: the one the model "
              "plugins declare; add ,debias=true for the position-debiased judge)")
@click.option("--agent", help="agent (consultant/debater) spec (default: the one the model plugins declare)")
@click.option("--tasks", help="comma-separated tasks or groups (extractive, closed, multimodal, all)")
@click.option("--protocols", help="comma-separated protocols")
@click.option("--limit", type=int, help="questions per task (default: the task's sample size, 128)")
@click.option("--output", "--output_path", "--output-path", "output", help="run directory (resumable)")
@click.option("--include-path", multiple=True, help="extra folder of task YAML files")
@click.option("--rounds", type=int, help="debate/consultancy rounds (3)")
@click.option("--turn-style", type=click.Choice(["simultaneous", "sequential"]))
@click.option("--best-of-n", type=int, help="debater samples per turn (4)")
@click.option("--judge-mode", type=click.Choice(["predict", "cot", "probs"]),
              help="predict (paper), cot, or probs: the answer read from the answer-token probabilities (needs logprobs)")
@click.option("--few-shot", type=int, help="judge few-shot examples (0)")
@click.option("--answer-order", type=click.Choice(["random", "both"]), help="both orders per question (default) or one at random")
@click.option("--word-limit", type=int, help="words per argument asked for in the prompt (150); cut only with -o truncate_words=true")
@click.option("-o", "--option", "extra_options", multiple=True, help="any protocol option as KEY=VALUE")
def run(config_path, judge, agent, tasks, protocols, limit, seed, output, data_dir, include_path, concurrency,
        extra_options, cache_from, quiet, **option_flags):
    """Run protocols on tasks and write every call, turn and decision to the run directory."""
    from oversight_bench.config import expand_variants, load_run_config
    from oversight_bench.commands import run_eval

    opts = {OPTION_FLAGS[k]: v for k, v in option_flags.items() if v is not None}
    opts.update(parse_key_values(extra_options))
    overrides = {"judge": judge, "agent": agent, "tasks": tasks, "protocols": protocols, "limit": limit,
                 "seed": seed, "output": output, "data_dir": data_dir, "include_path": include_path,
                 "concurrency": concurrency, "options": opts, "cache_from": cache_from}
    config = load_run_config(config_path, overrides)
    for one in expand_variants(config):  # an ablation preset runs each variant into <output>/<name>
        outcome = run_eval(one, progress=not quiet, log=lambda m: click.echo(redact_text(m), err=True))
        _finish(outcome)


@cli.command()
@click.option("--from", "source", help="run directory whose transcripts to judge")
@click.option("--suite", help="transcript suite to judge (see `list suites`), compared with its original judges")
@click.option("--limit", type=int, help="--suite: judge only this many rooms (a seeded sample)")
@click.option("--skip-long", is_flag=True, help="--suite: skip (and count) rooms longer than the judge's context")
@click.option("--judge", required=True, help="the new judge's model spec")
@click.option("--output", "--output_path", "--output-path", "output", required=True, help="new run directory")
@click.option("--concurrency", type=int)
@click.option("-o", "--option", "extra_options", multiple=True, help="judge option as KEY=VALUE (judge_mode, few_shot)")
@click.option("--cache-from", multiple=True, help="run directory whose stored model calls to reuse (identical requests only; repeatable)")
@click.option("--quiet", is_flag=True)
def judge(source, suite, limit, skip_long, judge, output, concurrency, extra_options, cache_from, quiet):
    """Re-judge stored QA, debate and one-round consultancy transcripts with a new judge: judge calls only."""
    from oversight_bench.commands import rejudge

    if bool(source) == bool(suite):
        raise BenchError("judge: give exactly one of --from RUN_DIR or --suite NAME")
    if suite:
        _judge_suite(suite, judge, output, limit, skip_long, concurrency, extra_options, cache_from, quiet)
        return
    if limit is not None or skip_long:
        raise BenchError("judge: --limit and --skip-long apply to --suite only")
    outcome = rejudge(source, judge, output, progress=not quiet, concurrency=concurrency,
                      option_overrides=parse_key_values(extra_options), cache_from=cache_from)
    _finish(outcome)


def _judge_suite(suite, judge, output, limit, skip_long, concurrency, extra_options, cache_from, quiet) -> None:
    from oversight_bench.suites import evaluate_suite, format_result

    outcome, result = evaluate_suite(suite, judge, output, limit=limit, skip_long=skip_long, progress=not quiet,
                                     concurrency=concurrency, option_overrides=parse_key_values(extra_options),
                                     log=lambda m: click.echo(m, err=True), cache_from=cache_from)
    if outcome.stats.jobs_failed:
        _finish(outcome)
    for line in format_result(result):
        click.echo(line)


def _finish(outcome) -> None:
    from oversight_bench.end_of_run import print_summary

    print_summary(outcome)
    if outcome.stats.jobs_failed:
        click.echo(f"error: {outcome.stats.jobs_failed} job(s) failed; first: {redact_text(outcome.stats.errors[0])}. "
                   f"Finished records are saved: run the same command again to retry the rest.", err=True)
        sys.exit(1)


@cli.command(name="list")
@click.argument("what", type=click.Choice(["tasks", "protocols", "models", "plugins", "suites"]))
def list_cmd(what):
    """List registered tasks, protocols, model backends, suites or plugins, with their package and version."""
    from oversight_bench.registry import get_registry

    if what == "suites":  # sizes come from the imported rooms (imported once into the user cache)
        from oversight_bench.suites import list_lines

        for line in list_lines():
            click.echo(line)
        return
    reg = get_registry()
    if what == "plugins":
        for p in reg.plugins:
            state = f"BROKEN: {p.error}" if p.error else ", ".join(p.hooks) or "(no hooks)"
            click.echo(f"{p.name:<14} {p.package} {p.version:<10} {state}")
        return
    for name in reg.names(what):
        e = reg.entries[what][name]
        detail = getattr(e.obj, "task_type", "") if what == "tasks" else ""
        click.echo(f"{name:<22} {detail:<11} {e.package} {e.version}" if detail else f"{name:<22} {e.package} {e.version}")


@cli.command()
@click.argument("directory")
def export(directory):
    """Write a run's records to stdout as JSONL (kind: call, turn or decision)."""
    from oversight_bench.rundir import export_jsonl

    export_jsonl(directory, lambda line: sys.stdout.write(line + "\n"))


def _add_analysis_commands() -> None:
    """The core's analysis commands live in their own module; plugins add theirs by `register_commands`."""
    from oversight_bench.analysis_cli import elo, leaderboard, report

    from oversight_bench.rundir.salvage import salvage_cmd

    for command in (report, leaderboard, elo, salvage_cmd):
        cli.add_command(command)


_add_analysis_commands()


def main():
    cli(prog_name="oversight-bench")


if __name__ == "__main__":
    main()
