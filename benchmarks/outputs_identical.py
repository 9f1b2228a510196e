"""Are `report`, `leaderboard`, `view --export`, `export` (JSONL, `--preferences`, `--inspect`) and
`results.json`/`samples.jsonl` outputs byte-identical before and after a refactor?

Runs the project's own commands (with the code that PYTHONPATH selects) on fixture runs from
tests/fake_runs.py, plus any real-model run given with --real, and hashes every file they write.

    PYTHONPATH=OLD_TREE python benchmarks/outputs_identical.py --save GOLDEN [--real RUN]
    PYTHONPATH=NEW_TREE python benchmarks/outputs_identical.py --check GOLDEN

`--save` builds the fixture runs into GOLDEN/runs (once; `--check` reuses them, so only the code
differs), copies them (and --real) into a work folder, runs every command there on relative paths
(`runs/...` into `out/<command>/`, each command's exit and printed lines in `out/<command>.log`),
and writes GOLDEN/manifest.json (sha256 per output file), the outputs staying in GOLDEN/work/out. `--check` does the same into GOLDEN/check-<n> and lists each
file that differs, is missing or is new; exit 1 on any difference.

Fair comparison, nothing hidden: the only text replaced before hashing is (a) the git commit of
the code under test (report `report_commit`, leaderboard `commit`, and its first 12 digits as the
leaderboard's pages print it) and
(b) ISO timestamps (`generated`) that fall inside the window the commands ran in. Both are replaced
by fixed placeholders; besides, results.json's `timings.seconds` (the wall time of the step) is
replaced, and `export --inspect`'s eval logs (zip files named by the time they were written) are
hashed as inspect's own reader loads them (JSON, the log's random ids and location left out); the raw files are kept beside the manifest for inspection. The commands run
with PYTHONHASHSEED=0 (sums over sets of strings otherwise differ in their last digits run to run),
TZ=UTC and COLUMNS=200. A carried cell names the day its board was built (`† from the build of DAY`):
save and check on the same day, or save again.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
MANIFEST = "manifest.json"
ISO = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\+00:00|Z)?")
#: the time an eval log's name begins with (`inspect_log.export_inspect`)
INSPECT_STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\+00-00")


def build_fixtures(runs: Path) -> list[str]:
    """The fixture runs (made once, kept: every later check reads the same bytes)."""
    done = runs / ".complete"
    if not done.exists():
        if runs.exists():
            shutil.rmtree(runs)
        runs.mkdir(parents=True)
        sys.path.insert(0, str(TESTS))
        from fake_runs import make_crossplay, make_run

        make_run(runs / "judge-a", judge="sim:judge-a", n_questions=40, seed=0)  # 80 extractive: cells n >= 64
        make_run(runs / "judge-b", judge="sim:judge-b", n_questions=6, seed=1)
        make_run(runs / "human", judge="human:nyu-2023", n_questions=3, seed=2)
        make_crossplay(runs / "xp", {"sim:agent": 50.0, "other": -50.0}, n_games=80, judge="sim:xp-judge")
        # a scripted-model run with stored calls and best-of-N turns: what export --preferences and
        # --inspect read (not among the report's runs, so those commands read what they always read)
        res = subprocess.run([sys.executable, "-c", "from oversight_bench.cli import main; main()", *SCRIPTED,
                              "--output", "scripted"], cwd=runs, capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"the scripted run failed:\n{res.stdout}\n{res.stderr}")
        done.write_text("ok\n")
    return sorted(p.name for p in runs.iterdir() if p.is_dir())


#: the scripted run (`build_fixtures`): debates with best-of-N turns, judged with probabilities
SCRIPTED = ["run", "--judge", "scripted:default,logprobs=true", "--agent", "scripted:default", "--tasks", "prontoqa",
            "--limit", "2", "--protocols", "debate,open_debate,consultancy,qa_without_article", "--best-of-n", "3",
            "--rounds", "2", "--quiet"]
#: fixture runs only the export steps read
EXPORT_ONLY = ("scripted",)


def commands(fixtures: list[str], real: bool) -> list[tuple[str, list[str] | None]]:
    """(output name, CLI arguments): each command writes into out/<name> (its stdout into
    out/<name>.log); None: the step `run_all` does itself."""
    exported = [f"runs/{n}" for n in fixtures]
    runs = [f"runs/{n}" for n in fixtures if n not in EXPORT_ONLY]
    plain = [r for r in runs if r != "runs/xp"]
    cmds = [
        ("report", ["report", *runs, "--output", "out/report"]),
        ("report-one", ["report", "runs/judge-b", "--output", "out/report-one"]),
        ("leaderboard", ["leaderboard", *runs, "--output", "out/leaderboard"]),
        ("leaderboard-carry", ["leaderboard", "runs/judge-b", "--output", "out/leaderboard-carry", "--show-small",
                               "--carry", "out/leaderboard/results.json"]),
        # a board of an earlier build (schema v2, tests/fake_runs.legacy_board) carried: its transcript pages
        # are drawn again from their data by the room template
        ("legacy-src", ["leaderboard", "runs/judge-b", "--output", "out/legacy-src", "--show-small"]),
        ("legacy-board", None),
        ("leaderboard-legacy", ["leaderboard", "runs/human", "--output", "out/leaderboard-legacy", "--show-small",
                                "--carry", "out/legacy-src/results.json"]),
        ("view", ["view", *plain, "--export", "out/view", "--page-size", "7"]),
        ("view-cells", ["view", *plain, "--export", "out/view-cells", "--cells", "out/leaderboard/rooms-cells.json"]),
        *[(f"export-{Path(r).name}", ["export", r]) for r in exported],
        ("export-preferences", ["export", "--preferences", "runs/scripted"]),
        ("export-preferences-all", ["export", "--preferences", "runs/scripted", "--pairs", "all"]),
        ("export-preferences-rooms", ["export", "--preferences", "runs/judge-a", "--pairs", "rooms"]),
        ("export-inspect", ["export", "runs/scripted", "--inspect", "out/export-inspect"]),
        ("export-inspect-json", None),
        ("export-inspect-a", ["export", "runs/judge-a", "--inspect", "out/export-inspect-a"]),
        ("export-inspect-a-json", None),
        ("results-file", None),
    ]
    if real:
        cmds += [
            ("real-report", ["report", "runs/real", "--output", "out/real-report"]),
            ("real-leaderboard", ["leaderboard", "runs/real", "--output", "out/real-leaderboard", "--show-small"]),
            ("real-view", ["view", "runs/real", "--export", "out/real-view"]),
        ]
    return cmds


def code_commit() -> str | None:
    """The git commit of the oversight_bench that PYTHONPATH selects (what the outputs record)."""
    # run outside any checkout: `python -c` puts its working folder first on sys.path, ahead of PYTHONPATH
    out = subprocess.run([sys.executable, "-c", "import oversight_bench, pathlib; print(pathlib.Path(oversight_bench.__file__).parent)"],
                         cwd="/", capture_output=True, text=True, check=True)
    res = subprocess.run(["git", "rev-parse", "HEAD"], cwd=out.stdout.strip(), capture_output=True, text=True)
    return res.stdout.strip() or None


def normalise(data: bytes, commit: str | None, start: dt.datetime, end: dt.datetime) -> bytes:
    """Replace the code's commit and the timestamps written during this run (nothing else)."""
    if commit:  # in full (results.json, report.json), then as the pages shorten it (its first 12 digits)
        data = data.replace(commit.encode(), b"<CODE-COMMIT>").replace(commit[:12].encode(), b"<CODE-COMMIT>")

    def stamp(m: re.Match) -> bytes:
        try:
            t = dt.datetime.fromisoformat(m.group(0).decode().replace("Z", "+00:00"))
        except ValueError:
            return m.group(0)
        t = t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)
        return b"<GENERATED>" if start <= t <= end else m.group(0)

    return ISO.sub(stamp, data)


#: eval-log fields inspect fills with random ids or the file's place (not what the export wrote); a chat
#: message's `id` too (inspect's random id; a sample's `id` is the room's job key, and stays)
_INSPECT_RANDOM = frozenset({"eval_id", "run_id", "uuid", "location"})


def inspect_as_json(folder: Path) -> None:
    """Each eval log of `folder` as inspect's reader loads it, in JSON (`<n>.json`, in the marker's order),
    its random ids and location left out; the logs (zip files named by their time) and the marker go."""
    from inspect_ai.log import read_eval_log

    marker = folder / "oversight-bench-inspect.json"
    names = json.loads(marker.read_text())["logs"]

    def scrub(obj):
        if isinstance(obj, dict):
            return {k: "<RANDOM>" if k in _INSPECT_RANDOM or (k == "id" and "role" in obj) else scrub(v)
                    for k, v in obj.items()}
        if isinstance(obj, list):
            return [scrub(v) for v in obj]
        return obj

    for i, name in enumerate(names):
        log = read_eval_log(str(folder / name))
        data = scrub(json.loads(log.model_dump_json()))
        (folder / f"{i}.json").write_text(json.dumps({"name": name.split("_", 1)[1], **data}, indent=1, sort_keys=True))
        (folder / name).unlink()
    marker.unlink()


#: results.json and samples.jsonl of each fixture run, written by the code under test from its store
_RESULTS = """
import shutil, sys, time, types
from pathlib import Path
from oversight_bench.end_of_run import summarize
from oversight_bench.rundir.results_file import write_results
from oversight_bench.rundir.store import Store

for name in sys.argv[1:]:
    store = Store.open(Path("runs") / name)
    try:
        stats = types.SimpleNamespace(jobs_done=1, jobs_skipped=2, jobs_failed=0, calls=3, cache_hits=4, failures={"x": 1})
        write_results(store, store.read_config() or {}, summarize(store), stats, [{"task": "-", "reason": "r", "count": 1}],
                      time.monotonic())
    finally:
        store.close()
    out = Path("out/results-file") / name
    out.mkdir(parents=True)
    for f in ("results.json", "samples.jsonl"):
        shutil.move(Path("runs") / name / f, out / f)
"""


def results_files(work: Path, fixtures: list[str], env: dict[str, str]) -> None:
    res = subprocess.run([sys.executable, "-c", _RESULTS, *fixtures], cwd=work, env=env, capture_output=True, text=True)
    (work / "out" / "results-file.log").write_text(f"exit {res.returncode}\n--- stdout\n{res.stdout}--- stderr\n{res.stderr}")
    print(f"results-file: exit {res.returncode}", file=sys.stderr)
    for path in (work / "out" / "results-file").rglob("results.json"):
        path.write_text(re.sub(r'"seconds": [0-9.e+-]+', '"seconds": "<SECONDS>"', path.read_text()))


def run_all(golden: Path, work: Path, real: Path | None) -> dict[str, str]:
    """Run every command in `work` on copies of the runs; return {relative path: sha256 of normalised bytes}."""
    fixtures = build_fixtures(golden / "runs")
    if work.exists():
        shutil.rmtree(work)
    (work / "runs").mkdir(parents=True)
    for name in fixtures:
        shutil.copytree(golden / "runs" / name, work / "runs" / name)
    if real is not None:
        shutil.copytree(real, work / "runs" / "real")
    commit = code_commit()
    time.sleep(2)  # the fixtures' own timestamps (a run built in the last second) stay outside the window
    # one hash seed: a float summed over a set of strings changes in its last digits with the set's order
    env = {**os.environ, "COLUMNS": "200", "TZ": "UTC", "PYTHONHASHSEED": "0"}
    start = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(seconds=1)
    for name, args in commands(fixtures, real is not None):
        if name.endswith("-json"):
            inspect_as_json(work / "out" / name[:-len("-json")])
            continue
        if name == "results-file":
            results_files(work, fixtures, env)
            continue
        if args is None:  # turn the board just built into an earlier build's (files only: no oversight_bench code)
            sys.path.insert(0, str(TESTS))
            from fake_runs import legacy_board

            legacy_board(work / "out" / "legacy-src")
            continue
        res = subprocess.run([sys.executable, "-c", "from oversight_bench.cli import main; main()", *args],
                             cwd=work, env=env, capture_output=True, text=True)
        (work / "out").mkdir(exist_ok=True)
        (work / "out" / f"{name}.log").write_text(f"$ oversight-bench {' '.join(args)}\nexit {res.returncode}\n"
                                                   f"--- stdout\n{res.stdout}--- stderr\n{res.stderr}")
        print(f"{name}: exit {res.returncode}", file=sys.stderr)
        if res.returncode != 0:
            print(res.stderr[-2000:], file=sys.stderr)
    end = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=1)
    hashes = {}
    for path in sorted((work / "out").rglob("*")):
        if path.is_file():
            data = normalise(path.read_bytes(), commit, start, end)
            if path.suffix == ".log":  # the commands' printed lines name the work folder's absolute path nowhere, but a time may appear
                data = data.replace(str(work).encode(), b"<WORK>")
                data = INSPECT_STAMP.sub(b"<STAMP>", data)  # the eval logs' names (export --inspect)
            hashes[path.relative_to(work / "out").as_posix()] = hashlib.sha256(data).hexdigest()
    return hashes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", metavar="DIR", help="write the golden manifest and outputs into DIR")
    mode.add_argument("--check", metavar="DIR", help="compare against the manifest in DIR; exit 1 on a difference")
    ap.add_argument("--real", metavar="RUN", help="also a real-model run folder (read from a copy)")
    ap.add_argument("--work", metavar="DIR", help="work folder (default: DIR/out for --save, DIR/check-<pid> for --check)")
    a = ap.parse_args()
    golden = Path(a.save or a.check).resolve()
    golden.mkdir(parents=True, exist_ok=True)
    if a.check:
        saved = json.loads((golden / MANIFEST).read_text())
        real = Path(a.real) if a.real else (Path(saved["real"]) if saved.get("real") else None)
        work = Path(a.work or golden / f"check-{os.getpid()}").resolve()
        hashes = run_all(golden, work, real)
        old = saved["files"]
        differ = [p for p in sorted(set(old) | set(hashes)) if old.get(p) != hashes.get(p)]
        for p in differ:
            what = "missing" if p not in hashes else "new" if p not in old else "differs"
            print(f"{what}: {p}   (golden {golden / 'work' / 'out' / p}, now {work / 'out' / p})")
        print(f"{len(hashes)} files compared with {golden / MANIFEST}: {len(differ)} differ", file=sys.stderr)
        return 1 if differ else 0
    real = Path(a.real).resolve() if a.real else None
    work = Path(a.work or golden / "work").resolve()
    hashes = run_all(golden, work, real)
    (golden / MANIFEST).write_text(json.dumps({"code_commit": code_commit(), "real": str(real) if real else None,
                                               "files": hashes}, indent=1) + "\n")
    print(f"{len(hashes)} files hashed -> {golden / MANIFEST}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
