"""Example task pack: the `capitals` task and the loader that reads the CSV shipped with it."""

from __future__ import annotations

import csv
from pathlib import Path

from oversight_bench import hookimpl
from oversight_bench.api import Records, load_yaml_tasks

HERE = Path(__file__).parent


def load_capitals(cfg, ctx):
    """One row per country; the wrong options are the other countries' capitals."""
    with open(HERE / cfg.options.get("file", "capitals.csv"), newline="", encoding="utf-8") as f:
        pairs = [(r["country"].strip(), r["capital"].strip()) for r in csv.DictReader(f)]
    capitals = sorted({c for _, c in pairs})
    rows = [{"id": country.lower().replace(" ", "_"), "question": f"What is the capital of {country}?",
             "correct": capital, "incorrect": [c for c in capitals if c != capital]} for country, capital in pairs]
    return Records(rows)


@hookimpl
def register_loaders(register):
    register("capitals", load_capitals)


@hookimpl
def register_tasks(register):
    for task in load_yaml_tasks(HERE):
        register(task)
