"""The command-line flags that `run` and `elo` share, defined once so they read and behave the same
(their fields: `config.SharedConfig`)."""

from __future__ import annotations

import click

SHARED = {
    "config": click.option("--config", "config_path", type=click.Path(),
                           help="YAML holding the same fields as the flags (flags win)"),
    "seed": click.option("--seed", type=int, help="seed for sampling, answer order and generation (default 0)"),
    "data_dir": click.option("--data-dir", help="dataset folder (default: $OVERSIGHT_BENCH_DATA or ../shared/datasets)"),
    "concurrency": click.option("--concurrency", type=int, help="in-flight calls per model"),
    "cache_from": click.option("--cache-from", multiple=True,
                               help="run directory whose stored model calls to reuse (identical requests only; repeatable)"),
    "quiet": click.option("--quiet", is_flag=True, help="no progress bar"),
}


def shared_flags(f):
    """Adds every shared flag to a command (its function takes them by name)."""
    for option in reversed(SHARED.values()):
        f = option(f)
    return f
