"""The command-line flags that several commands share, defined once so they read and behave the same
(the fields of `run` and `elo`: `config.SharedConfig`).

One meaning per flag: `-o` is `--option KEY=VALUE` wherever it exists (`run`, `judge`, `serve`), and
an output folder is only ever `--output`. Commands that take no options (`report`, `leaderboard`,
`elo`, the importers) still recognise `-o`, to say so in one line instead of taking it as anything."""

from __future__ import annotations

import click

from oversight_bench.errors import BenchError

SHARED = {
    "config": click.option("--config", "config_path", type=click.Path(),
                           help="YAML holding the same fields as the flags (flags win)"),
    "seed": click.option("--seed", type=int, help="seed for sampling, answer order and generation (default 0)"),
    "data_dir": click.option("--data-dir", help="dataset folder (default: $OVERSIGHT_BENCH_DATA or ../shared/datasets)"),
    "concurrency": click.option("--concurrency", type=int, help="in-flight calls per model (default: the backend's)"),
    "cache_from": click.option("--cache-from", multiple=True,
                               help="run directory whose stored model calls to reuse (identical requests only; "
                                    "repeatable; default: none)"),
    "max_total_tokens": click.option(
        "--max-total-tokens", type=int, help="stop once the model calls of the run directory used this many tokens "
        "(prompt + reply, the calls already stored included): exit 1, finished jobs kept; resume with a higher limit "
        "(default: no limit)"),
    "max_cost": click.option(
        "--max-cost", type=float, metavar="USD", help="stop once those calls cost this many US dollars at the prices "
        "each model's spec gives (price_in=, price_out=: USD per million prompt / reply tokens; a model without them "
        "is refused): exit 1, finished jobs kept; resume with a higher limit (default: no limit)"),
    "quiet": click.option("--quiet", is_flag=True, help="no progress bar"),
}


def shared_flags(f):
    """Adds every shared flag to a command (its function takes them by name)."""
    for option in reversed(SHARED.values()):
        f = option(f)
    return f


def _no_short_output(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        command = " ".join(ctx.command_path.split()[1:]) or ctx.info_name
        raise BenchError(f"{command}: -o is not an output flag; give the folder as --output {value} "
                         f"(-o is --option KEY=VALUE, on run, judge and serve)")


def output_option(help: str, *aliases: str, **attrs):
    """`--output DIR` (and `aliases` a command already took, such as lm-evaluation-harness's
    `--output_path`), plus a hidden `-o` that refuses in one line: `-o` once meant `--output` on some
    commands."""
    def add(f):
        f = click.option("-o", "stale_o", hidden=True, expose_value=False, is_eager=True, callback=_no_short_output)(f)
        return click.option("--output", *aliases, "output", help=help, **attrs)(f)
    return add
