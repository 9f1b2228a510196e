"""How a command that ran jobs (`run`, `judge`, `elo`) ends: the end-of-run summary, then exit status
1 on a budget stop or a failed job. Its own module so `cli` and `analysis_cli` share it without
importing each other."""

from __future__ import annotations

import sys

import click

from oversight_bench.errors import terminal_line
from oversight_bench.redact import redact_text


def finish_run(outcome, next_command: str | None = None) -> None:
    """Print `outcome`'s summary (and `next_command`, the one to run next); exit 1 where the run stopped
    on its budget or a job failed."""
    from oversight_bench.end_of_run import print_summary

    print_summary(outcome, next_command)
    if outcome.stats.budget_stop:
        click.echo(f"error: {terminal_line(outcome.stats.budget_stop)}", err=True)
        sys.exit(1)
    if outcome.stats.jobs_failed:
        click.echo(f"error: {outcome.stats.jobs_failed} job(s) failed; first: {terminal_line(redact_text(outcome.stats.errors[0]))}. "
                   f"Finished records are saved: run the same command again to retry the rest.", err=True)
        sys.exit(1)
