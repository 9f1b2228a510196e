"""Time loading the nine built-in tasks with this tree's readers and with an older commit's, and
check that both give the same questions.

Each measurement is a fresh process (`python -c`) that loads every task (`--limit`, `--seed`) from
the data directory: its wall time counts interpreter start and imports, where `datasets` costs
most. Cold: the `datasets` Arrow cache (`<cache root>/datasets`) is empty; warm: the same command
again. The old tree is `git archive`d from `--old-ref` (default: the commit before loaders read
through `datasets`) into a temporary folder; old and new runs alternate, so load on the machine
hits both alike, and the medians of `--repeats` runs are compared as ratios new/old.

Both trees get their own cache root holding a copy of the caller's GSM8KQA sandbox results, so
no run executes programs (without them, an untimed first run makes them).

The check compares every question (id, texts, images, meta) by hash, plus skip counts, notes and
data file fingerprints; it prints task names and ids only (GPQA text must not be printed). Meta keys
that main added after the old commit, for reasons other than reading files (`ADDED_META`), are
named when they are the only difference, and hashed apart from the rest.

    python benchmarks/load_tasks.py [--old-ref REF] [--repeats 3] [--limit 64] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OLD_REF = "cede7d0"  # main before the loaders read through `datasets`
#: meta keys a question gained on main after OLD_REF, not from the readers: key -> why
ADDED_META = {"do_not_publish": "b4849c4: the core's generic do-not-publish flag, set by GPQA's loader"}
TASKS = ["boolq", "gpqa", "gpqa_extractive", "gsm8kqa", "mmlu", "mmmu", "prontoqa", "quality", "truthfulqa"]

CHILD = r"""
import hashlib, json, os, resource, sys, time

def cpu():  # this process and the programs it ran (GPQA: unzip)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime

t0 = time.perf_counter()
from pathlib import Path
from oversight_bench.tasks import resolve_tasks
data, limit, seed, names = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
added = set(sys.argv[5].split(",")) - {""}

def digest(q, drop=()):
    images = [[hashlib.sha256(im.data).hexdigest(), im.mime] for im in q.images]
    meta = {k: v for k, v in q.meta.items() if k not in drop}
    body = [q.id, q.task, q.task_type, q.question, q.correct, q.incorrect, q.article, images, meta]
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=repr).encode()).hexdigest()

out = {"import_s": time.perf_counter() - t0, "import_cpu": cpu(), "tasks": {}}
for name in names:
    t, c = time.perf_counter(), cpu()
    task = resolve_tasks([name], [])[0]
    res = task.load(data, limit, seed)
    out["tasks"][name] = {
        "seconds": time.perf_counter() - t, "cpu": cpu() - c, "available": task.available(data),
        "questions": [[q.id, digest(q), digest(q, added), sorted(added & set(q.meta))] for q in res.questions],
        "skipped": dict(sorted(res.skipped.items())),
        "notes": list(res.notes), "files": dict(sorted((res.files or {}).items())),
    }
out["datasets_imported"] = "datasets" in sys.modules
print(json.dumps(out))
"""


def user_cache_root() -> Path:
    env = os.environ.get("OVERSIGHT_BENCH_CACHE")
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "oversight-bench"


#: where a tree keeps GSM8KQA's sandbox results under its cache root (older trees: the root itself)
SANDBOX_FILES = ("gsm8kqa/sandbox_results.jsonl", "sandbox_results.jsonl")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_child(tree: Path, cache: Path, args) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds, the child's report) of one process loading the tasks."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OVERSIGHT_BENCH_CACHE": str(cache),
           "OVERSIGHT_BENCH_DATA": str(args.data_dir)}
    env.pop("OVERSIGHT_BENCH_SOURCE", None)
    cmd = [sys.executable, "-c", CHILD, str(args.data_dir), str(args.limit), str(args.seed), ",".join(args.tasks),
           ",".join(ADDED_META)]
    t, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t, _children_cpu() - cpu
    if proc.returncode != 0:
        sys.exit(f"loading the tasks in {tree} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, cpu, json.loads(proc.stdout.strip().splitlines()[-1])


def import_cpu(module: str) -> float:
    """CPU seconds a fresh interpreter spends importing `module` (beyond starting)."""
    costs = []
    for code in (f"import {module}", "pass"):
        cpu = _children_cpu()
        subprocess.run([sys.executable, "-c", code], check=True)
        costs.append(_children_cpu() - cpu)
    return costs[0] - costs[1]


def compare(old: dict, new: dict, added: dict | None = None) -> list[str]:
    """What differs between two runs' tasks (names, ids and field names only). Questions that
    differ only in `ADDED_META` keys are counted in `added` (key -> questions), not reported."""
    problems = []
    for name in old["tasks"]:
        a, b = old["tasks"][name], new["tasks"].get(name)
        if b is None:
            problems.append(f"{name}: missing in the new run")
            continue
        for key in ("available", "skipped", "notes", "files"):
            if a[key] != b[key]:
                problems.append(f"{name}: {key} differ: old {a[key]!r} new {b[key]!r}"[:400])
        if [q[0] for q in a["questions"]] != [q[0] for q in b["questions"]]:
            problems.append(f"{name}: question ids differ ({len(a['questions'])} old, {len(b['questions'])} new)")
        else:
            changed = []
            for x, y in zip(a["questions"], b["questions"]):
                if x[1] == y[1]:
                    continue
                if x[2] == y[2] and added is not None and (y[3] or x[3]):  # the same but for added keys
                    for key in set(y[3]) ^ set(x[3]) or set(y[3]):
                        added.setdefault(key, set()).add(f"{name}/{y[0]}")
                else:
                    changed.append(y[0])
            if changed:
                problems.append(f"{name}: {len(changed)} questions differ in content, e.g. {changed[:3]}")
    return problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-ref", default=OLD_REF, help=f"git ref of the old readers (default {OLD_REF})")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--limit", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tasks", type=lambda s: s.split(","), default=TASKS)
    ap.add_argument("--data-dir", type=Path,
                    default=Path(os.environ.get("OVERSIGHT_BENCH_DATA") or REPO.parent / "shared" / "datasets"))
    ap.add_argument("--json", type=Path, help="also write the measurements here")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="load-tasks-") as tmp:
        tmp = Path(tmp)
        old_tree = tmp / "old"
        old_tree.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.old_ref], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive.stdout, check=True)
        trees = {"old": old_tree, "new": REPO}
        caches = {k: tmp / f"cache-{k}" for k in trees}
        for c in caches.values():
            c.mkdir()
        sandbox = next((user_cache_root() / f for f in SANDBOX_FILES if (user_cache_root() / f).is_file()), None)
        if sandbox is None:
            print("no GSM8KQA sandbox results in the cache: an untimed run executes its programs first", file=sys.stderr)
            run_child(old_tree, caches["old"], args)
            sandbox = next(caches["old"] / f for f in SANDBOX_FILES if (caches["old"] / f).is_file())
        saved = sandbox.read_bytes()
        for c in caches.values():
            for f in SANDBOX_FILES:
                (c / f).parent.mkdir(parents=True, exist_ok=True)
                (c / f).write_bytes(saved)

        walls = {(k, m): [] for k in trees for m in ("cold", "warm")}
        cpus = {(k, m): [] for k in trees for m in ("cold", "warm")}
        per_task = {(k, m): {} for k in trees for m in ("cold", "warm")}
        results, datasets_import, imported = {}, [], {}
        for r in range(args.repeats):
            datasets_import.append(import_cpu("datasets"))
            for k in (("old", "new") if r % 2 == 0 else ("new", "old")):
                shutil.rmtree(caches[k] / "datasets", ignore_errors=True)
                for mode in ("cold", "warm"):
                    wall, cpu, out = run_child(trees[k], caches[k], args)
                    walls[k, mode].append(wall)
                    cpus[k, mode].append(cpu)
                    for name, t in out["tasks"].items():
                        per_task[k, mode].setdefault(name, []).append(t["cpu"])
                    per_task[k, mode].setdefault("(imports before)", []).append(out["import_cpu"])
                    imported[k, mode] = out["datasets_imported"]
                    results.setdefault(k, out)
                    if compare(results[k], out):
                        sys.exit(f"{k}: two runs of the same tree gave different questions: {compare(results[k], out)}")
                print(f"repeat {r + 1}/{args.repeats} {k}: cold {walls[k, 'cold'][-1]:.2f} s "
                      f"({cpus[k, 'cold'][-1]:.2f} s CPU), warm {walls[k, 'warm'][-1]:.2f} s "
                      f"({cpus[k, 'warm'][-1]:.2f} s CPU)", file=sys.stderr, flush=True)

    med = {key: statistics.median(v) for key, v in walls.items()}
    med_cpu = {key: statistics.median(v) for key, v in cpus.items()}
    print(f"\nLoading {len(args.tasks)} tasks (limit {args.limit}, seed {args.seed}), one process each, "
          f"median of {args.repeats} (seconds; old = {args.old_ref}; CPU = user + system of the process, "
          f"which other load on the machine disturbs less than wall time)")
    print(f"{'':8}{'old wall':>10}{'new wall':>10}{'new/old':>9}{'old CPU':>10}{'new CPU':>10}{'new/old':>9}")
    for mode in ("cold", "warm"):
        print(f"{mode:8}{med['old', mode]:10.2f}{med['new', mode]:10.2f}{med['new', mode] / med['old', mode]:9.2f}"
              f"{med_cpu['old', mode]:10.2f}{med_cpu['new', mode]:10.2f}{med_cpu['new', mode] / med_cpu['old', mode]:9.2f}")
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    print(f"\nCPU seconds per task inside the process (median; a task pays the imports it is first to need)")
    print(f"{'task':17}{'old cold':>9}{'new cold':>9}{'old warm':>9}{'new warm':>9}")
    for name in ["(imports before)", *args.tasks]:
        cells = [statistics.median(per_task[k, m][name]) for m in ("cold", "warm") for k in ("old", "new")]
        print(f"{name:17}" + "".join(f"{c:9.2f}" for c in (cells[0], cells[1], cells[2], cells[3])))
    print(f"new runs imported datasets: cold {imported['new', 'cold']}, warm {imported['new', 'warm']}; "
          f"importing it alone costs {statistics.median(datasets_import):.2f} s CPU (median)")

    added: dict[str, set] = {}
    problems = compare(results["old"], results["new"], added)
    n = sum(len(t["questions"]) for t in results["new"]["tasks"].values())
    if problems:
        print(f"\nquestions identical: NO ({len(problems)} differences)")
        for p in problems:
            print("  " + p)
    else:
        print(f"\nquestions identical: yes ({len(args.tasks)} tasks, {n} questions; ids, texts, images, meta, "
              "skip counts, notes, availability and data file fingerprints all equal)")
    for key, where in sorted(added.items()):
        tasks = sorted({w.split("/")[0] for w in where})
        print(f"  but for meta key {key!r}, which {len(where)} questions ({', '.join(tasks)}) have in one tree "
              f"and not the other, as main added it after the old commit ({ADDED_META[key]})")
    if args.json:
        args.json.write_text(json.dumps({
            "old_ref": args.old_ref, "limit": args.limit, "seed": args.seed, "repeats": args.repeats,
            "wall_s": {f"{k}_{m}": v for (k, m), v in walls.items()},
            "cpu_s": {f"{k}_{m}": v for (k, m), v in cpus.items()},
            "median_s": {f"{k}_{m}": v for (k, m), v in med.items()},
            "median_cpu_s": {f"{k}_{m}": v for (k, m), v in med_cpu.items()},
            "ratio_new_old": {m: med["new", m] / med["old", m] for m in ("cold", "warm")},
            "cpu_ratio_new_old": {m: med_cpu["new", m] / med_cpu["old", m] for m in ("cold", "warm")},
            "per_task_cpu_median_s": {f"{k}_{m}": {name: statistics.median(v) for name, v in per_task[k, m].items()}
                                      for k in trees for m in ("cold", "warm")},
            "new_imported_datasets": {m: imported["new", m] for m in ("cold", "warm")},
            "load_average_end": os.getloadavg(),
            "datasets_import_cpu_s": datasets_import,
            "identical": not problems, "differences": problems,
            "added_meta": {k: {"questions": len(v), "why": ADDED_META[k]} for k, v in sorted(added.items())},
        }, indent=2) + "\n")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
