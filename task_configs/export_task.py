"""`oversight-bench export-task NAME --lm-eval DIR`: a task's questions as an lm-eval task (the
QA-without-article form: the question and its two answers, shown in a seeded order per question),
DIR/NAME.csv and DIR/NAME.yaml, which `lm_eval --include_path DIR --tasks NAME` runs. Added by the
`register_commands` hook of `task_configs`; the format is `task_configs/loaders/lm_eval.py`'s."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import click

from oversight_bench.api import ORDERS, BenchError, data_dir, resolve_tasks


@click.command("export-task")
@click.argument("name")
@click.option("--lm-eval", "lm_eval_dir", required=True,
              help="folder to write NAME.yaml and NAME.csv into (lm-eval's --include_path)")
@click.option("--limit", type=int, help="questions (default: the task's sample size)")
@click.option("--seed", type=int, default=0, show_default=True, help="the sample and each question's answer order")
@click.option("--data-dir", "data", help="dataset folder (default: $OVERSIGHT_BENCH_DATA)")
@click.option("--include-path", multiple=True, help="extra folder of task YAML files")
def export_task(name, lm_eval_dir, limit, seed, data, include_path):
    """Write task NAME as an lm-eval multiple-choice task (two answers each) under --lm-eval DIR."""
    from task_configs.loaders.lm_eval import export_task as write

    if limit is not None and limit < 1:
        raise BenchError(f"--limit must be 1 or more questions, got {limit}")
    (task,) = resolve_tasks([name], list(include_path))
    if task.task_type == "multimodal":
        raise BenchError(f"task {name} shows images; an lm-eval multiple-choice task is text only")
    loaded = task.load(data_dir(data), limit, seed)
    questions = list(itertools.islice(loaded.questions, limit or task.sample_size))
    if not questions:
        raise BenchError(f"task {name} has no questions on this data; nothing to export")
    shown = [(q, random.Random(f"export:{seed}:{q.id}").choice(ORDERS)) for q in questions]
    spec, csv_path = write(task.name, shown, Path(lm_eval_dir))
    click.echo(f"wrote {spec} and {csv_path} ({len(shown)} questions); run: lm_eval --include_path {lm_eval_dir} "
               f"--tasks {task.name} --model ...")
