"""GSM8KQA: a GSM8K question with two Python programs, one executing to the ground truth, one not.

The paper built it from model program proposals (Appendix F.2). Real programs come first: the two
Program-of-Thoughts runs in `gsm8k/pot_outputs/` (few-shot and zero-shot programs for the test
set). Every program is executed in the sandbox (never trusted from the file's `executed` field),
and a question becomes a row when at least one program matches the ground truth and another runs
to a different number. Sets made by `oversight-bench build-task gsm8kqa --model SPEC` fill in
questions the PoT runs leave out. Execution results are cached on disk by program hash, so a
load runs each program once per machine.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
from collections import Counter
from pathlib import Path

from oversight_bench.api import CountDeferred, is_counting, strict_json
from oversight_bench.api import cache_dir as _cache_dir
from task_configs.sandbox import STATUSES, SandboxResult, numeric, run_programs
from task_configs.loaders.common import LoadContext, Records, read_rows

POT_FILES = "gsm8k/pot_outputs/gsm8K_*.jsonl"
SANDBOX_VERSION = "3"  # 3: limits per sandbox (a failure another sandbox caused is never kept)
# prompt echoes of the zero-shot run (the question itself, the instructions), not reasoning
_HEADER = re.compile(
    r"^\s*# (Question:.*|Answer this question by implementing a solver\(\) function\."
    r"|Let's write a Python program step by step, and then return the answer"
    r"|Firstly, we need define the following variable:)\s*$"
)


def cache_dir() -> Path:
    return _cache_dir("gsm8kqa")


def default_built_path() -> Path:
    return cache_dir() / "gsm8kqa.jsonl"


def norm_question(text: str) -> str:
    return " ".join(str(text).split())


def gold_answer(solution: str) -> float | None:
    """The number after `####` in a GSM8K solution."""
    tail = str(solution).rsplit("####", 1)[-1] if "####" in str(solution) else None
    return numeric(tail) if tail is not None else None


def clean_program(code: str) -> str:
    """Drop the zero-shot run's prompt-echo comments (they restate the question and the
    instructions, and would tell the runs apart) and outer blank lines."""
    lines = [ln for ln in str(code).splitlines() if not _HEADER.match(ln)]
    return "\n".join(lines).strip("\n")


def _key(code: str) -> str:
    return hashlib.sha256(f"{SANDBOX_VERSION}\x00{code}".encode()).hexdigest()


def _cached(line: str) -> tuple[str, SandboxResult] | None:
    """One cache line as (key, result), or None if it is not one this version wrote (a damaged or
    foreign line costs only a re-run)."""
    try:
        d = strict_json(line)  # NaN or 1e999 (no answer the sandbox gives): not a line it wrote
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    key, status, answer, error = d.get("key"), d.get("status"), d.get("answer"), d.get("error", "")
    if not (isinstance(key, str) and status in STATUSES and isinstance(error, str)):
        return None
    if answer is not None and not isinstance(answer, (bool, str)) and numeric(answer) is None:
        return None
    return key, SandboxResult(status, answer, "", error)


def execute_cached(programs: list[str], cache_file: Path | None = None) -> dict[str, SandboxResult]:
    """Run each distinct program once per machine; results are kept in a JSONL cache by hash."""
    cache_file = cache_file or cache_dir() / "sandbox_results.jsonl"
    known: dict[str, SandboxResult] = {}
    if cache_file.exists():
        for line in cache_file.read_text(encoding="utf-8", errors="replace").splitlines():
            entry = _cached(line)
            if entry is not None:
                known[entry[0]] = entry[1]
    todo = sorted({c for c in programs if _key(c) not in known})
    if todo and is_counting():  # `list tasks`: say what counting would take instead of taking it
        of = "" if len(todo) == len(set(programs)) else f" (of {len(set(programs))})"
        raise CountDeferred(f"counted once its {len(todo)} programs{of} have run in the sandbox, "
                            f"which its first run does (a few minutes, once per machine; cached after)")
    if todo:
        from tqdm import tqdm

        # a cold cache runs thousands of programs: minutes, so a bar (on stderr, shown after 2 s)
        with tqdm(total=len(todo), desc="gsm8kqa: running programs in the sandbox (once; cached)", unit="program",
                  delay=2, file=sys.stderr, dynamic_ncols=True) as bar:
            lock = threading.Lock()

            def tick() -> None:
                with lock:
                    bar.update(1)

            results = run_programs(todo, timeout=3.0, cpu_seconds=2, memory_mb=256, on_result=tick)
        lines = []
        for code, res in zip(todo, results):
            known[_key(code)] = res
            if not res.transient:  # a sandbox that failed, or a machine out of memory or processes, is no verdict
                lines.append(json.dumps({"key": _key(code), "status": res.status, "answer": res.answer,
                                         "error": res.error[:200]}) + "\n")
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            with open(cache_file, "a", encoding="utf-8") as f:
                f.writelines(lines)
        except OSError:  # a read-only home only costs re-execution next time
            pass
    return {c: known[_key(c)] for c in programs}


def classify(result: SandboxResult, gold: float) -> str:
    """correct, incorrect (ran to another number) or failed (no number: error, timeout, ...)."""
    if not result.ok or numeric(result.answer) is None:
        return "failed"
    return "correct" if result.matches(gold) else "incorrect"


def _pot_rows(ctx: LoadContext, golds: dict[str, tuple[str, float]]) -> tuple[dict, Counter]:
    programs: dict[str, list[tuple[str, str]]] = {}
    skipped = Counter()
    for path in ctx.glob([POT_FILES]):
        rows, bad = read_rows(path, "jsonl")
        skipped["malformed_row"] += bad
        run = "zero-shot" if "_zs_" in path.name else "few-shot"
        for r in rows:
            if "question" not in r:
                continue
            gen = r.get("generated")
            code = gen[0] if isinstance(gen, list) and gen else gen
            if not isinstance(code, str) or not code.strip():
                skipped["missing_program"] += 1
                continue
            programs.setdefault(norm_question(r["question"]), []).append((run, clean_program(code)))
    results = execute_cached([c for progs in programs.values() for _, c in progs])
    out = {}
    for q, progs in sorted(programs.items()):
        if q not in golds:
            skipped["question_not_in_gsm8k"] += 1
            continue
        ident, gold = golds[q]
        kinds = {"correct": [], "incorrect": [], "failed": []}
        for run, code in progs:
            kinds[classify(results[code], gold)].append((run, code))
        if not kinds["correct"] or not kinds["incorrect"]:
            skipped["no_correct_and_incorrect_program"] += 1
            continue
        out[ident] = {
            "id": ident, "question": q, "correct": kinds["correct"][0][1],
            "incorrect": [c for _, c in kinds["incorrect"]],
            "_meta": {"ground_truth": gold, "program_source": "Program-of-Thoughts outputs",
                      "runs": {"correct": kinds["correct"][0][0], "incorrect": [r for r, _ in kinds["incorrect"]]}},
        }
    return out, skipped


def _built_rows(paths: list[Path], golds: dict[str, tuple[str, float]]) -> tuple[dict, Counter]:
    out, skipped = {}, Counter()
    for path in paths:
        if not path.is_file():
            continue
        rows, bad = read_rows(path, "jsonl")
        skipped["malformed_row"] += bad
        for r in rows:
            if r.get("status") != "pair":
                continue
            q = norm_question(r.get("question", ""))
            ident = golds.get(q, (r.get("id"), None))[0]
            if not ident or not r.get("correct") or not r.get("incorrect"):
                skipped["built_row_incomplete"] += 1
                continue
            out.setdefault(ident, {
                "id": ident, "question": q, "correct": r["correct"], "incorrect": r["incorrect"],
                "_meta": {"ground_truth": r.get("ground_truth"), "program_source": f"built with {r.get('model')}"},
            })
    return out, skipped


def load_golds(ctx: LoadContext, split: str = "test") -> dict[str, tuple[str, float]]:
    """question text -> (stable id, ground truth) for a GSM8K split."""
    rows, _ = read_rows(ctx.file(f"gsm8k/{split}.jsonl"), "jsonl")
    out = {}
    for i, r in enumerate(rows):
        gold = gold_answer(r.get("answer", ""))
        if gold is not None:
            out.setdefault(norm_question(r["question"]), (f"{split}/{i}", gold))
    return out


def built_paths(cfg, ctx: LoadContext) -> list[Path]:
    paths = []
    for p in cfg.options.get("built", ["{cache}/gsm8kqa.jsonl"]):
        p = str(p).replace("{cache}", str(cache_dir()))
        paths.append(Path(p) if Path(p).is_absolute() else ctx.path(p))
    return paths


def balance_runs(rows: dict) -> tuple[dict, int]:
    """Keep as many pairs whose correct program is few-shot as zero-shot (chosen by id hash).

    The two PoT runs write in different styles and the few-shot run is right more often, so
    without this a judge could pick by style instead of by checking the program.
    """
    by_run: dict[str, list[str]] = {}
    for ident, row in rows.items():
        by_run.setdefault(row["_meta"]["runs"]["correct"], []).append(ident)
    if len(by_run) < 2:
        return rows, 0
    n = min(len(v) for v in by_run.values())
    keep = {k for v in by_run.values() for k in sorted(v, key=lambda k: hashlib.sha256(k.encode()).hexdigest())[:n]}
    return {k: v for k, v in rows.items() if k in keep}, len(rows) - len(keep)


def load(cfg, ctx: LoadContext) -> Records:
    golds = load_golds(ctx)
    rows, skipped = _pot_rows(ctx, golds)
    notes, dropped = [], 0
    if cfg.options.get("balance_runs", True):
        rows, dropped = balance_runs(rows)
        if dropped:
            notes.append(f"left out {dropped} Program-of-Thoughts pairs so the few-shot and zero-shot runs are "
                         "each the correct program equally often")
    facts = {"pot": len(rows), "balanced_out": dropped, "built": 0}  # for the task's `substitution` text
    if cfg.options.get("use_built", True):
        built, sk = _built_rows(built_paths(cfg, ctx), golds)
        skipped.update(sk)
        added = {k: v for k, v in built.items() if k not in rows}
        if added:
            notes.append(f"{len(added)} questions from built program sets")
        rows.update(added)
        facts["built"] = len(added)
    return Records([rows[k] for k in sorted(rows)], +skipped, notes, facts)
