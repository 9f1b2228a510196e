"""Shared test helpers: running the CLI in-process or in a subprocess, reading records back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("OVERSIGHT_BENCH_DATA", REPO.parent / "shared" / "datasets"))
FAKE = "scripted:default"


def cli(*args: str, env: dict | None = None):
    """Run the CLI in-process; returns click's Result (exit_code, output, stderr)."""
    from oversight_bench.cli import cli as group
    from oversight_bench.registry import reset_registry

    reset_registry()
    return CliRunner().invoke(group, list(args), env=env, catch_exceptions=False)


def cli_subprocess(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "oversight_bench.cli", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, cwd=REPO)


def records(directory: Path, kinds=("turn", "decision")) -> list[dict]:
    """Records as comparable dicts (no ids or timestamps)."""
    from oversight_bench.rundir.store import Store

    store = Store.open(directory)
    try:
        out = []
        for r in store.iter_records():
            if r["kind"] in kinds:
                out.append(json.dumps(r, sort_keys=True))
        return sorted(out)
    finally:
        store.close()
