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


def cli(*args: str, env: dict | None = None, catch_exceptions: bool = False):
    """Run the CLI in-process; returns click's Result (exit_code, output, stderr). An unexpected
    exception propagates, unless `catch_exceptions` (then it is in the Result's exc_info)."""
    from oversight_bench.cli import cli as group
    from oversight_bench.registry import reset_registry

    reset_registry()
    return CliRunner().invoke(group, list(args), env=env, catch_exceptions=catch_exceptions)


def cli_completed(*args: str, env: dict | None = None, cwd: Path | str = REPO, text: bool = True) -> subprocess.CompletedProcess:
    """The CLI in-process, read back as `cli_subprocess` returns it (returncode, stdout, stderr: text,
    or bytes unless `text`), from `cwd` as the subprocess would run: for cases whose meaning is the command's exit
    status and its error line, not the process. An exception that escapes the command is written
    into stderr as the crash's traceback would be, so a check for "Traceback" still sees it."""
    import traceback

    here = os.getcwd()
    os.chdir(cwd)
    try:
        res = cli(*args, env=env, catch_exceptions=True)
    finally:
        os.chdir(here)
    stderr = res.stderr_bytes or b""
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*res.exc_info)).encode()
    if text:
        return subprocess.CompletedProcess(list(args), res.exit_code, res.stdout_bytes.decode("utf-8", "replace"),
                                           stderr.decode("utf-8", "replace"))
    return subprocess.CompletedProcess(list(args), res.exit_code, res.stdout_bytes, stderr)


def cli_env(env: dict | None = None, drop: tuple[str, ...] = ()) -> dict:
    """The environment of a CLI subprocess: this process's, less `drop`, with `env` on top. PYTHONPATH is
    extended, never replaced: `env`'s entries first, then this checkout, then what the tests set
    (tests/conftest.py puts the lane guard there), so the child imports this tree and stays guarded."""
    full = {k: v for k, v in os.environ.items() if k not in drop}
    extra = dict(env or {})
    given = extra.pop("PYTHONPATH", "")
    full.update(extra)
    full["PYTHONPATH"] = os.pathsep.join(filter(None, [given, str(REPO), os.environ.get("PYTHONPATH", "")]))
    return full


def cli_command(*args: str, prefix: tuple[str, ...] | list[str] = (), code: str | None = None) -> list[str]:
    """argv of the CLI in a fresh interpreter (`prefix`: a wrapper such as a bwrap sandbox; `code`: Python
    run with `-c` instead of the CLI module, for a CLI set up first, e.g. with a plugin registered, that
    reads `args` from sys.argv)."""
    return [*prefix, sys.executable, *(("-c", code) if code is not None else ("-m", "oversight_bench.cli")), *args]


def cli_subprocess(*args: str, env: dict | None = None, timeout: float | None = 120, cwd: Path | str = REPO,
                   prefix: tuple[str, ...] | list[str] = (), drop_env: tuple[str, ...] = (), text: bool = True,
                   input: str | bytes | None = None, code: str | None = None) -> subprocess.CompletedProcess:
    """The CLI in a subprocess, run to its end: the one launcher of the tests. Use it only for what needs
    a process of its own (signals, stdin, the environment at start-up, a sandbox, a crash); `cli` runs
    the same command in-process."""
    return subprocess.run(cli_command(*args, prefix=prefix, code=code), capture_output=True, text=text, input=input,
                          env=cli_env(env, drop_env), timeout=timeout, cwd=cwd)


def cli_popen(*args: str, env: dict | None = None, cwd: Path | str = REPO, prefix: tuple[str, ...] | list[str] = (),
              drop_env: tuple[str, ...] = (), code: str | None = None, **popen) -> subprocess.Popen:
    """The CLI started in a subprocess and left running (to signal, kill or race it); `popen`: stdout,
    stderr, text... as subprocess.Popen takes them (default: both discarded)."""
    popen.setdefault("stdout", subprocess.DEVNULL)
    popen.setdefault("stderr", subprocess.DEVNULL)
    return subprocess.Popen(cli_command(*args, prefix=prefix, code=code), env=cli_env(env, drop_env), cwd=cwd, **popen)


def stored_records(store, kind: str | None = None) -> list[dict]:
    """A store's turns and decisions (of `kind` only, if given), each as the dict it was stored as."""
    return [r.stored() for r in store.records(kind, keep=True)]


def stored_calls(store) -> list[dict]:
    """A store's calls, each as the dict it was stored as."""
    return [c.stored() for c in store.calls(keep=True)]


def records(directory: Path, kinds=("turn", "decision")) -> list[dict]:
    """Records as comparable dicts (no ids or timestamps)."""
    from oversight_bench.rundir.store import Store

    store = Store.open(directory)
    try:
        out = []
        for r in stored_records(store):
            if r["kind"] in kinds:
                out.append(json.dumps(r, sort_keys=True))
        return sorted(out)
    finally:
        store.close()


def khan_csv(path: Path, *, judged: bool = False, rows: int = 2) -> Path:
    """A tiny Khan et al. llm_debate CSV (the `transcript` JSON column): `rows` one-round debates on
    one story, correct answer first (as in the published file); `judged`: the first row has its
    judge's verdict ('Answer: A') in the `answer` column."""
    import csv

    transcript = {"question": "What lands?", "story": "The ship landed on the red moon at dawn.",
                  "answers": {"correct": "the ship", "incorrect": "the moon"},
                  "names": {"correct": "Debater A", "incorrect": "Debater B"}, "rollout_type": "quality_sim",
                  "rounds": [{"correct": "<argument><quote>The ship landed</quote>, Debater B is wrong.</argument>",
                              "incorrect": "<argument>The moon moves.</argument>"}]}
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["id", "question", "question_set_id", "story", "transcript", "answer"])
        w.writeheader()
        for i in range(rows):
            w.writerow({"id": i, "question": f"What lands? ({i})", "question_set_id": f"s{i}", "story": transcript["story"],
                        "transcript": json.dumps(transcript), "answer": "Answer: A" if judged and i == 0 else ""})
    return path


def decision_row(**fields):
    """A decision's analysis row (`analysis.rows.DecisionRow`) from the fields a test names, the job
    fields every stored decision holds filled in, checked as a stored record is."""
    from oversight_bench.analysis.rows import DecisionRow
    from oversight_bench.rundir.records import Decision

    job = {"kind": "decision", "judge": "J", "protocol": "qa_without_article", "task": "t", "question_id": "q"}
    data = {**job, **fields}
    data.setdefault("job_key", f"{data['protocol']}|{data['task']}|{data['question_id']}|{data.get('answer_order')}")
    return DecisionRow.of(Decision.from_stored(data))


def turn_record(**fields):
    """A stored turn (`rundir.records.Turn`) from the fields a test names, the job fields filled in."""
    from oversight_bench.rundir.records import Turn

    return Turn.from_stored({"kind": "turn", "job_key": "k", "judge": "J", "protocol": "consultancy", "task": "t",
                             "question_id": "q", "speaker": "s", "content": None, **fields})
