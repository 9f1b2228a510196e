"""Throughput, scale and cache benchmark of oversight-bench against lm-evaluation-harness.

Both harnesses run the same QA-without-article evaluation (the judge sees a question and two
answers and replies `Answer: <1|2>`) against one fake OpenAI-compatible server with a fixed
latency L, at the same concurrency C, each in its own process. Throughput is measured at the
server (first request in to last response out), so neither harness's own bookkeeping is trusted;
end-to-end wall time is the process's, start-up and saving included. The limit is C/L requests
per second: every figure is also given as a fraction of it. Settings: C = 64 and 256 at L = 200 ms
and at L = 1 s, and C = 64 at L = 0, each on 2,000 questions; then a debate run, memory at 10k and
100k questions and cached re-runs. Every row records the machine's load averages before and after
it (other processes may share the CPUs: read them next to the figures).

oversight-bench runs with the `openai:` backend, the crash-safe store and the call cache on, on
the example plugin's generated `arith` task (`pip install -e tests/plugin_example`). lm-eval
(`pip install 'lm-eval[api]==0.4.13'`) runs its `local-chat-completions` backend on a task
written here whose documents are the exact prompts oversight-bench sent. Run-to-run noise on a
2-core machine is about ±0.01–0.03 of C/L, so each oversight-bench setting runs `--repeat` times
(default 3) and the median run is reported, with the spread.

    python benchmarks/throughput.py            # everything (12 minutes on 2 cores shared with other work)
    python benchmarks/throughput.py --quick    # C=64, L=200 ms vs lm-eval only (about a minute)
    python benchmarks/throughput.py --settings c64_l200,c256_l1000   # those comparisons only

The last line is `efficiency=<fraction of C/L at C=64, L=200 ms (the first setting run)> ratio_vs_lmeval=<lm-eval
end-to-end seconds / ours>`. Results also go to `--json` (default benchmarks/results.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from fake_openai_server import ServerHandle, start_server  # noqa: E402

MODEL = "fake-judge"
TASK = "arith"
#: the comparison settings against lm-eval: key -> (C, L seconds); the first is --quick's
SETTINGS = {"c64_l200": (64, 0.2), "c256_l200": (256, 0.2), "c64_l1000": (64, 1.0), "c256_l1000": (256, 1.0),
            "c64_l0": (64, 0.0)}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def timed(cmd: list[str], *, env: dict | None = None, cwd: Path = REPO, log_to: Path | None = None) -> dict[str, Any]:
    """Run a command to completion; wall seconds and the peak RSS of that process alone (wait4)."""
    out = open(log_to, "w") if log_to else subprocess.DEVNULL
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env={**os.environ, **(env or {})}, stdout=out, stderr=out)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if log_to:
        out.close()
    if proc.returncode != 0:
        tail = log_to.read_text()[-3000:] if log_to else ""
        raise RuntimeError(f"{' '.join(cmd[:4])} ... exited {proc.returncode}\n{tail}")
    return {"wall_s": wall, "peak_rss_mb": usage.ru_maxrss / 1024, "cpu_s": usage.ru_utime + usage.ru_stime}


def served(srv: ServerHandle, C: int, L: float) -> dict[str, Any]:
    s = srv.stats()
    rps = s["requests_per_s"]
    return {"requests": s["requests"], "responses": s["responses"], "window_s": s["window_s"], "requests_per_s": rps,
            "limit_rps": C / L if L else None, "efficiency": rps / (C / L) if L else None,
            "max_inflight": s["max_inflight"]}


def spec(srv: ServerHandle, C: int) -> str:
    return f"openai:{MODEL},base_url={srv.url},concurrency={C},timeout=60"


def run_ours(srv: ServerHandle, work: Path, name: str, *, C: int, L: float, n: int, protocol: str = "qa_without_article",
             extra: tuple[str, ...] = (), fresh: bool = True) -> dict[str, Any]:
    """One `oversight-bench run` in a subprocess, store and cache on."""
    out = work / name
    if fresh and out.exists():
        shutil.rmtree(out)
    srv.reset()
    cmd = [sys.executable, "-m", "oversight_bench.cli", "run", "--judge", spec(srv, C),
           "--agent", spec(srv, C), "--tasks", TASK, "--protocols", protocol, "--limit", str(n), "--seed", "0",
           "--output", str(out), "--quiet", *extra]
    res = timed(cmd, log_to=work / f"{name}.log")
    res.update(served(srv, C, L), calls_in_store=_count(out, "calls"), decisions=_count(out, "records", "kind='decision'"),
               output=str(out))
    return res


def _count(out: Path, table: str, where: str = "1") -> int:
    con = sqlite3.connect(out / "results.sqlite")
    try:
        return con.execute(f"SELECT COUNT(*) FROM {table} WHERE {where}").fetchone()[0]
    finally:
        con.close()


def prompts_of(out: Path) -> list[str]:
    """The judge prompts oversight-bench sent, in question order: lm-eval gets the same ones."""
    con = sqlite3.connect(out / "results.sqlite")
    try:
        rows = con.execute("SELECT question_id, request FROM calls WHERE role='judge'").fetchall()
    finally:
        con.close()
    rows.sort(key=lambda r: int(r[0].rsplit("-", 1)[-1]))
    texts = []
    for _, req in rows:
        msgs = json.loads(req)["messages"]
        assert len(msgs) == 1 and msgs[0]["role"] == "user", "QA without article sends one user message"
        texts.append(msgs[0]["content"])
    return texts


def write_lmeval_task(work: Path, prompts: list[str]) -> Path:
    """A generate_until task whose documents are the given prompts (one user message each)."""
    d = work / "lmeval_task"
    d.mkdir(exist_ok=True)
    with open(d / "docs.jsonl", "w") as f:
        for i, p in enumerate(prompts):
            f.write(json.dumps({"id": i, "prompt": p, "target": "Answer: 1"}) + "\n")
    (d / "obench_qa.yaml").write_text(
        "task: obench_qa\n"
        "dataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {d / 'docs.jsonl'}\n"
        "test_split: test\n"
        "output_type: generate_until\n"
        "doc_to_text: '{{prompt}}'\n"
        "doc_to_target: '{{target}}'\n"
        "target_delimiter: ''\n"
        "generation_kwargs:\n  until: ['\\n\\n']\n  max_gen_toks: 256\n  do_sample: false\n  temperature: 0.0\n"
        "metric_list:\n  - metric: exact_match\n    aggregation: mean\n    higher_is_better: true\n"
    )
    return d


def lmeval_env(work: Path) -> dict[str, str]:
    return {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(work / "hf_cache"),
            "HF_HOME": str(work / "hf_home"), "TOKENIZERS_PARALLELISM": "false"}


def warm_lmeval(work: Path, task_dir: Path) -> None:
    """Build the datasets cache of the JSON file once, untimed, so lm-eval is not charged for it."""
    code = ("import datasets; datasets.load_dataset('json', data_files={'test': %r})" % str(task_dir / "docs.jsonl"))
    subprocess.run([sys.executable, "-c", code], env={**os.environ, **lmeval_env(work)}, check=True,
                   capture_output=True)


def run_lmeval(srv: ServerHandle, work: Path, task_dir: Path, name: str, *, C: int, L: float) -> dict[str, Any]:
    exe = shutil.which("lm_eval") or str(Path(sys.executable).with_name("lm_eval"))
    out = work / name
    srv.reset()
    cmd = [exe, "--model", "local-chat-completions",
           "--model_args", f"model={MODEL},base_url={srv.url}/chat/completions,num_concurrent={C},max_retries=3,"
                           f"tokenizer_backend=none,tokenized_requests=False,timeout=60",
           "--tasks", "obench_qa", "--include_path", str(task_dir), "--apply_chat_template",
           "--output_path", str(out), "--log_samples", "--batch_size", "1"]
    res = timed(cmd, env=lmeval_env(work), log_to=work / f"{name}.log")
    res.update(served(srv, C, L))
    return res


def lmeval_available() -> bool:
    try:
        import lm_eval  # noqa: F401
        return True
    except ImportError:
        return False


def report_cmd_available() -> bool:
    from oversight_bench.cli import cli
    return "report" in cli.commands


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    versions = {}
    for mod in ("openai", "httpx2", "uvicorn", "uvloop", "lm_eval", "aiohttp"):
        try:
            m = __import__(mod)
            versions[mod] = getattr(m, "__version__", "?")
        except ImportError:
            versions[mod] = None
    return {"cpus": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem, 1), "python": platform.python_version(),
            "load_avg_at_start": os.getloadavg(), "versions": versions, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def _load(la) -> str:
    return "/".join(f"{x:.2f}" for x in la)


def compare(srv: ServerHandle, work: Path, tag: str, *, C: int, L: float, n: int, lmeval: bool,
            repeat: int = 3) -> dict[str, Any]:
    log(f"[{tag}] oversight-bench: {n} questions, C={C}, L={L * 1000:.0f} ms, {repeat} run(s)")
    load_before = os.getloadavg()
    runs = [run_ours(srv, work, f"ours_{tag}", C=C, L=L, n=n) for _ in range(repeat)]
    runs.sort(key=lambda r: r["requests_per_s"])
    ours = runs[(len(runs) - 1) // 2]  # the median run (the lower middle one for an even count)
    row = {"C": C, "L": L, "n": n, "ours": ours, "ours_repeats": [r["requests_per_s"] for r in runs]}
    if lmeval:
        task_dir = write_lmeval_task(work, prompts_of(Path(ours["output"])))
        warm_lmeval(work, task_dir)
        log(f"[{tag}] lm-eval local-chat-completions: same {n} prompts")
        theirs = run_lmeval(srv, work, task_dir, f"lmeval_{tag}", C=C, L=L)
        row["lmeval"] = theirs
        row["throughput_ratio"] = ours["requests_per_s"] / theirs["requests_per_s"]
        row["wall_ratio_lmeval_over_ours"] = theirs["wall_s"] / ours["wall_s"]
    row["load_avg"] = {"before": load_before, "after": os.getloadavg()}
    _print_row(tag, row)
    return row


def _print_row(tag: str, row: dict) -> None:
    def one(name, r):
        eff = f", {r['efficiency']:.3f} of C/L" if r.get("efficiency") is not None else ""
        return (f"  {name:<15} {r['requests_per_s']:8.1f} req/s{eff}; window {r['window_s']:.2f} s; "
                f"end to end {r['wall_s']:.2f} s; peak RSS {r['peak_rss_mb']:.0f} MB; "
                f"CPU {1000 * r['cpu_s'] / max(1, r['requests']):.2f} ms/request")
    la = row["load_avg"]
    log(f"[{tag}] C={row['C']} L={row['L'] * 1000:.0f} ms n={row['n']}; load average (1, 5, 15 min) "
        f"before {', '.join(f'{x:.2f}' for x in la['before'])}, after {', '.join(f'{x:.2f}' for x in la['after'])}")
    log(one("oversight-bench", row["ours"]) + f" (median of {len(row['ours_repeats'])}: "
        f"{', '.join(f'{x:.0f}' for x in row['ours_repeats'])} req/s)")
    if "lmeval" in row:
        log(one("lm-eval", row["lmeval"]))
        log(f"  throughput ratio ours/lm-eval {row['throughput_ratio']:.2f}; "
            f"end-to-end lm-eval/ours {row['wall_ratio_lmeval_over_ours']:.2f}")


def debate(srv: ServerHandle, work: Path, *, C: int, L: float, n: int) -> dict[str, Any]:
    """Debates per second against C / (L x calls per debate): every call of a debate counts
    against the same concurrency C (judge and debaters are one model here)."""
    log(f"[debate] {n} debates, 3 rounds, 2 debaters, C={C}, L={L * 1000:.0f} ms")
    r = run_ours(srv, work, "debate", C=C, L=L, n=n, protocol="debate", extra=("--rounds", "3"))
    calls_per = r["calls_in_store"] / n
    qps = n / r["window_s"]
    limit = C / (L * calls_per)
    log(f"  {qps:.1f} debates/s vs limit C/(L x {calls_per:.0f} calls) = {limit:.1f}: {qps / limit:.3f}; "
        f"end to end {r['wall_s']:.1f} s")
    return {"C": C, "L": L, "n": n, "calls_per_debate": calls_per, "questions_per_s": qps,
            "limit_questions_per_s": limit, "efficiency": qps / limit, "run": r}


def scale(srv: ServerHandle, work: Path, *, C: int, sizes: tuple[int, ...]) -> dict[str, Any]:
    res: dict[str, Any] = {"C": C, "L": 0.0, "runs": {}}
    for n in sizes:
        log(f"[scale] {n} questions, C={C}, L=0")
        r = run_ours(srv, work, f"scale_{n}", C=C, L=0.0, n=n)
        res["runs"][str(n)] = r
        log(f"  wall {r['wall_s']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, {r['requests_per_s']:.0f} req/s")
    small, big = str(sizes[0]), str(sizes[-1])
    res["memory_ratio"] = res["runs"][big]["peak_rss_mb"] / res["runs"][small]["peak_rss_mb"]
    log(f"  peak memory {big} / {small}: {res['memory_ratio']:.2f}x")

    # a cached re-run: the same command again (every job already stored: zero calls)...
    n = sizes[0]
    r = run_ours(srv, work, f"scale_{n}", C=C, L=0.0, n=n, fresh=False)
    res["rerun_same_dir"] = {"n": n, "wall_s": r["wall_s"], "model_calls_at_server": r["requests"]}
    # ...and a re-run whose records were deleted, so every call is answered by the cache
    con = sqlite3.connect(Path(r["output"]) / "results.sqlite")
    con.execute("DELETE FROM records")
    con.commit()
    con.close()
    r = run_ours(srv, work, f"scale_{n}", C=C, L=0.0, n=n, fresh=False)
    res["rerun_from_cache"] = {"n": n, "wall_s": r["wall_s"], "model_calls_at_server": r["requests"],
                               "decisions": r["decisions"]}
    log(f"  cached re-run of {n}: {res['rerun_same_dir']['wall_s']:.1f} s (all stored), "
        f"{res['rerun_from_cache']['wall_s']:.1f} s (all from the call cache); model calls "
        f"{res['rerun_same_dir']['model_calls_at_server']} and {res['rerun_from_cache']['model_calls_at_server']}")

    if report_cmd_available():
        d = res["runs"][big]["output"]
        rep = {}
        for label, extra in (("tables", ["--no-figures"]), ("with_figures", [])):
            o = work / f"report_{label}"
            t = timed([sys.executable, "-m", "oversight_bench.cli", "report", d, "--output", str(o), *extra],
                      log_to=work / f"report_{label}.log")
            rep[label] = {"wall_s": t["wall_s"], "peak_rss_mb": t["peak_rss_mb"]}
            log(f"  report on {big} records ({label}): {t['wall_s']:.1f} s, peak RSS {t['peak_rss_mb']:.0f} MB")
        res["report"] = rep
    return res


def markdown(res: dict[str, Any]) -> str:
    """The figures as Markdown tables (what benchmarks/README.md quotes)."""
    m = res["machine"]
    lines = [f"Measured {m['date']} on {m['cpus']} CPUs ({m['cpu']}), {m['memory_gib']} GiB, Python {m['python']}, "
             f"load averages (1/5/15 min) at start {_load(m['load_avg_at_start'])}"
             f"{', at end ' + _load(res['load_avg_at_end']) if 'load_avg_at_end' in res else ''} "
             f"(other processes shared the CPUs); fake server on {res.get('server')}; "
             f"versions {', '.join(f'{k} {v}' for k, v in m['versions'].items() if v)}.", ""]
    lines += ["| setting | harness | req/s (server window) | of C/L | window s | end to end s | peak RSS MB | "
              "process CPU ms per request (start-up included) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for key in SETTINGS:
        row = res.get(key)
        if not row:
            continue
        la = row.get("load_avg")
        load = f"; load {_load(la['before'])} → {_load(la['after'])}" if la else ""
        setting = f"C={row['C']}, L={row['L'] * 1000:.0f} ms, {row['n']} questions{load}"
        reps = row.get("ours_repeats", [])
        spread = f" (median of {len(reps)}: {'/'.join(f'{x:.0f}' for x in reps)} req/s)" if len(reps) > 1 else ""
        for name, label in (("ours", f"oversight-bench, `openai:` backend{spread}"),
                            ("lmeval", "lm-eval 0.4.13 `local-chat-completions`")):
            r = row.get(name)
            if r:
                eff = f"{r['efficiency']:.3f}" if r.get("efficiency") is not None else "-"
                lines.append(f"| {setting} | {label} | {r['requests_per_s']:.0f} | {eff} | {r['window_s']:.2f} | "
                             f"{r['wall_s']:.2f} | {r['peak_rss_mb']:.0f} | "
                             f"{1000 * r['cpu_s'] / max(1, r['requests']):.2f} |")
        if "lmeval" in row:
            lines.append(f"| {setting} | ratio lm-eval / ours, end to end | | | | "
                         f"{row['wall_ratio_lmeval_over_ours']:.2f} | | |")
    d = res.get("debate")
    if d:
        lines += ["", "| debate (3 rounds, 2 debaters) | calls per debate | debates/s | limit C/(L x calls) | of limit | "
                  "end to end s |", "|---|---:|---:|---:|---:|---:|"]
        lines.append(f"| C={d['C']}, L={d['L'] * 1000:.0f} ms, {d['n']} debates | "
                     f"{d['calls_per_debate']:.1f} | {d['questions_per_s']:.1f} | "
                     f"{d['limit_questions_per_s']:.1f} | {d['efficiency']:.3f} | {d['run']['wall_s']:.1f} |")
    sc = res.get("scale")
    if sc:
        lines += ["", f"| scale (`openai:` backend, C={sc['C']}, L=0) | wall s | peak RSS MB | req/s |",
                  "|---|---:|---:|---:|"]
        for n, r in sc["runs"].items():
            lines.append(f"| {int(n):,} questions | {r['wall_s']:.1f} | {r['peak_rss_mb']:.0f} | {r['requests_per_s']:.0f} |")
        lines.append(f"| peak memory ratio, largest / smallest | {sc['memory_ratio']:.2f}x | | |")
        a, b = sc["rerun_same_dir"], sc["rerun_from_cache"]
        lines.append(f"| re-run of {a['n']:,}, same directory (all stored) | {a['wall_s']:.1f} | | "
                     f"{a['model_calls_at_server']} calls |")
        lines.append(f"| re-run of {b['n']:,}, records deleted (all from the call cache) | {b['wall_s']:.1f} | | "
                     f"{b['model_calls_at_server']} calls |")
        for label, r in (sc.get("report") or {}).items():
            lines.append(f"| `report` on {max(int(k) for k in sc['runs']):,} records ({label.replace('_', ' ')}) | "
                         f"{r['wall_s']:.1f} | {r['peak_rss_mb']:.0f} | |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="C=64, L=200 ms against lm-eval only")
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help=f"comma-separated comparison settings ({', '.join(SETTINGS)}); a subset skips the debate and scale runs")
    ap.add_argument("--n", type=int, default=2000, help="questions in the comparison runs")
    ap.add_argument("--no-lmeval", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="oversight-bench runs per setting (the median is reported)")
    ap.add_argument("--scale", default="10000,100000", help="question counts of the scale runs")
    ap.add_argument("--debate-n", type=int, default=300)
    ap.add_argument("--json", default=str(HERE / "results.json"), help="where to write the figures")
    ap.add_argument("--keep", action="store_true", help="keep the run directories")
    a = ap.parse_args(argv)
    chosen = ["c64_l200"] if a.quick else [k for k in a.settings.split(",") if k]
    unknown = [k for k in chosen if k not in SETTINGS]
    if unknown or not chosen:
        ap.error(f"unknown setting(s) {', '.join(unknown) or '(none)'}; expected some of {', '.join(SETTINGS)}")
    subset = a.quick or set(chosen) != set(SETTINGS)

    lmeval = lmeval_available() and not a.no_lmeval
    if not lmeval and not a.no_lmeval:
        log("lm-eval is not installed (pip install 'lm-eval[api]==0.4.13'): comparing nothing")
    work = Path(tempfile.mkdtemp(prefix="obench-throughput-"))
    results: dict[str, Any] = {"machine": machine(), "quick": a.quick, "settings": chosen, "task": TASK, "protocol": "qa_without_article"}
    servers: dict[float, ServerHandle] = {}

    def server(L: float) -> ServerHandle:
        if L not in servers:
            servers[L] = start_server(latency=L)
            results.setdefault("server", servers[L].info)
        return servers[L]

    t0 = time.perf_counter()
    try:
        for key in chosen:
            C, L = SETTINGS[key]
            results[key] = compare(server(L), work, key, C=C, L=L, n=a.n, lmeval=lmeval, repeat=a.repeat)
        if not subset:
            results["debate"] = debate(server(0.2), work, C=64, L=0.2, n=a.debate_n)
            sizes = tuple(int(x) for x in a.scale.split(",") if x)
            if sizes:
                results["scale"] = scale(server(0.0), work, C=64, sizes=sizes)
    finally:
        for s in servers.values():
            s.stop()
        if a.keep:
            log(f"run directories kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    results["benchmark_wall_s"] = time.perf_counter() - t0
    results["load_avg_at_end"] = os.getloadavg()
    Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    Path(a.json).with_suffix(".md").write_text(markdown(results))
    log(f"figures written to {a.json} and {Path(a.json).with_suffix('.md')} ({results['benchmark_wall_s']:.0f} s)")
    row = results[chosen[0]]
    ratio = f"{row['wall_ratio_lmeval_over_ours']:.2f}" if "lmeval" in row else "n/a"
    eff = row["ours"]["efficiency"]
    print(f"efficiency={'n/a' if eff is None else f'{eff:.3f}'} ratio_vs_lmeval={ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
