"""100,000 calls against a fake server with a realistic latency mix, killed and resumed, beside lm-eval.

Why: the other benchmarks use one fixed latency and <= 2,000 questions; a researcher's real runs are
large and their servers uneven (a long tail of slow answers, rate limits, the odd 5xx). This runs
`oversight-bench run` (the `openai:` backend, `qa_without_article` on the example plugin's generated
`arith` task: two judge calls per question, one per answer order) against `fake_openai_server.py`
in two phases, each on its own seeded server:

- realistic: REALISTIC_MIX latencies (95% in 50-300 ms, 4% in 1-3 s, 1% in 3-8 s) and
  REALISTIC_FAULTS (1.5% 429s with Retry-After 1 s, 0.5% 500s, 0.2% dropped connections, per
  attempt, at most 2 per call), `--realistic-calls` calls;
- scale: `--scale-calls` calls (100,000) with FAST_MIX (50-300 ms, no tail, no faults).

Per phase: the uninterrupted run's wall time against the latency bound (the latency the server
served, summed over every request, divided by the concurrency ceiling C: no client at C finishes
sooner), requests sent and re-sent (the server's count and the run's own), the window the client
settled at, peak RSS (wait4, that process alone) and the store's size on disk; then the same run
killed with SIGKILL once the server has answered `--kill-at` of the calls and resumed with the same
command: the resume's wall time, that none of its requests repeats a call stored before the kill
(calls, as messages and seed, the server saw during the resume against the stored requests), and
that its decision records equal the uninterrupted run's. The reference is measured in the same
run on the same server: lm-eval 0.4.13's `local-chat-completions` client (`num_concurrent=C`) on a
task whose documents are the exact prompts oversight-bench sent (all of them in the realistic
phase; the first `--lmeval-calls` in the scale phase, where lm-eval on 100k would take most of the
time budget: there the per-call figures are compared).

Every row records the load averages (the machine may be shared). Writes `--json` (default
benchmarks/results-100k.json) and the tables as the same name with `.md`; exit 1 if a resume
repeated a stored call or its decisions differ.

    python benchmarks/scale_100k.py                       # both phases, 100k calls in the scale phase
    python benchmarks/scale_100k.py --scale-calls 20000   # what fits in ~25 minutes on 2 cores shared with other work
    python benchmarks/scale_100k.py --realistic-calls 600 --scale-calls 4000 --lmeval-calls 1000 --json /tmp/p.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import shutil
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_openai_server import (FAST_MIX, REALISTIC_FAULTS, REALISTIC_MIX, ServerConfig, ServerHandle,  # noqa: E402
                                _h, start_server)
from throughput import (MODEL, REPO, TASK, lmeval_available, lmeval_env, machine, prompts_of,  # noqa: E402
                        timed, warm_lmeval, write_lmeval_task)


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S ") + msg, file=sys.stderr, flush=True)


def spec(srv: ServerHandle, C: int) -> str:
    return f"openai:{MODEL},base_url={srv.url},concurrency={C},timeout=60"


#: judge calls per question of qa_without_article (both answer orders)
CALLS_PER_QUESTION = 2


def run_cmd(srv: ServerHandle, out: Path, C: int, calls: int) -> list[str]:
    n = calls // CALLS_PER_QUESTION
    return [sys.executable, "-m", "oversight_bench.cli", "run", "--judge", spec(srv, C), "--agent", spec(srv, C),
            "--tasks", TASK, "--protocols", "qa_without_article", "--limit", str(n), "--seed", "0",
            "--output", str(out), "--quiet"]


def server_figures(srv: ServerHandle, C: int) -> dict[str, Any]:
    s = srv.stats()
    return {"requests": s["requests"], "answered_200": s["responses"], "by_status": s["by_status"],
            "by_fault": s["by_fault"], "max_inflight": s["max_inflight"], "window_s": s["window_s"],
            "latency_sum_s": s["latency_sum_s"], "latency_bound_s": s["latency_sum_s"] / C}


def seen(srv: ServerHandle) -> dict[str, int]:
    with urllib.request.urlopen(srv.base + "/seen", timeout=60) as r:
        return {h: n for h, n in json.loads(r.read())}


def store_figures(out: Path) -> dict[str, Any]:
    files = [p for p in out.rglob("*") if p.is_file()]
    con = sqlite3.connect(out / "results.sqlite")
    try:
        calls = con.execute("SELECT COUNT(*), COALESCE(SUM(attempts), 0) FROM calls").fetchone()
        decisions = con.execute("SELECT COUNT(*) FROM records WHERE kind='decision'").fetchone()[0]
    finally:
        con.close()
    traffic = {}
    try:
        res = json.loads((out / "results.json").read_text())
        traffic = _find(res, "traffic") or {}
    except (OSError, ValueError):
        pass
    return {"store_bytes": sum(p.stat().st_size for p in files),
            "sqlite_bytes": sum(p.stat().st_size for p in files if p.name.startswith("results.sqlite")),
            "calls_stored": calls[0], "attempts_stored": calls[1], "decisions": decisions, "traffic": traffic}


def _find(obj: Any, key: str) -> Any:
    """The first value under `key` anywhere in a JSON document (where results.json keeps traffic)."""
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        obj = list(obj.values())
    if isinstance(obj, list):
        for v in obj:
            got = _find(v, key)
            if got is not None:
                return got
    return None


def decisions(out: Path) -> dict[tuple, str]:
    """Each decision record's answer-bearing data, keyed by job and judge (timings dropped)."""
    con = sqlite3.connect(out / "results.sqlite")
    try:
        rows = con.execute("SELECT job_key, judge, data FROM records WHERE kind='decision'").fetchall()
    finally:
        con.close()
    keep = {}
    for job, judge, data in rows:
        d = json.loads(data)
        for k in ("created", "latency_s", "elapsed_s", "t", "time"):
            d.pop(k, None)
        keep[(job, judge)] = json.dumps(d, sort_keys=True)
    return keep


def stored_prompt_hashes(out: Path) -> set[str]:
    """The fake server's hash of each stored call's messages and seed (what `/seen` counts)."""
    con = sqlite3.connect(out / "results.sqlite")
    try:
        rows = con.execute("SELECT request FROM calls").fetchall()
    finally:
        con.close()
    out = set()
    for (r,) in rows:
        req = json.loads(r)
        out.add(f"{_h(_h(json.dumps(req['messages'], sort_keys=True, ensure_ascii=False)), req.get('seed')):016x}")
    return out


def uninterrupted(srv: ServerHandle, work: Path, name: str, C: int, calls: int) -> dict[str, Any]:
    out = work / name
    srv.reset()
    la0 = os.getloadavg()
    log(f"[{name}] oversight-bench: {calls:,} calls ({calls // CALLS_PER_QUESTION:,} questions), C={C}")
    r = timed(run_cmd(srv, out, C, calls), log_to=work / f"{name}.log")
    r.update(server=server_figures(srv, C), store=store_figures(out), output=str(out),
             load_avg={"before": la0, "after": os.getloadavg()})
    r["wall_over_bound"] = r["wall_s"] / r["server"]["latency_bound_s"]
    log(f"  wall {r['wall_s']:.1f} s, latency bound {r['server']['latency_bound_s']:.1f} s "
        f"({r['wall_over_bound']:.2f}x); {r['server']['requests']:,} requests; peak RSS {r['peak_rss_mb']:.0f} MB; "
        f"store {r['store']['store_bytes'] / 2**20:.1f} MiB; traffic {r['store']['traffic']}")
    return r


def killed_and_resumed(srv: ServerHandle, work: Path, name: str, C: int, calls: int, kill_at: float,
                       reference: dict[tuple, str]) -> dict[str, Any]:
    out = work / name
    srv.reset()
    la0 = os.getloadavg()
    log(f"[{name}] the same run, SIGKILL after {kill_at:.0%} of {calls:,} answers, then resumed")
    cmd = run_cmd(srv, out, C, calls)
    t0 = time.perf_counter()
    with open(work / f"{name}.log", "w") as f:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=f, stderr=f)
        while proc.poll() is None and srv.stats()["responses"] < kill_at * calls:
            time.sleep(0.2)
        answered_at_kill = srv.stats()["responses"]
        proc.send_signal(signal.SIGKILL)
        _, _, usage = os.wait4(proc.pid, 0)
    before_kill = {"wall_s": time.perf_counter() - t0, "peak_rss_mb": usage.ru_maxrss / 1024,
                   "server": server_figures(srv, C), "answered_at_kill": answered_at_kill}
    stored = stored_prompt_hashes(out)
    before_kill["calls_stored"] = len(stored)
    log(f"  killed after {before_kill['wall_s']:.1f} s: server answered {answered_at_kill:,}, "
        f"{len(stored):,} calls stored")
    srv.reset()
    r = timed(cmd, log_to=work / f"{name}-resumed.log")
    r.update(server=server_figures(srv, C), store=store_figures(out))
    sent = seen(srv)
    repeated = sorted(h for h in sent if h in stored)
    mine = decisions(out)
    same = sum(1 for k, v in reference.items() if mine.get(k) == v)
    r.update(before_kill=before_kill, prompts_sent=len(sent), repeated_stored_calls=len(repeated),
             decisions_equal=same, decisions_reference=len(reference), decisions_resumed=len(mine),
             identical=same == len(reference) == len(mine), load_avg={"before": la0, "after": os.getloadavg()})
    log(f"  resume: {r['wall_s']:.1f} s, {r['server']['requests']:,} requests for {len(sent):,} prompts, "
        f"{len(repeated)} of them already stored; decisions equal {same:,}/{len(reference):,} "
        f"(resumed has {len(mine):,}); peak RSS {r['peak_rss_mb']:.0f} MB")
    return r


def lmeval(srv: ServerHandle, work: Path, name: str, C: int, prompts: list[str]) -> dict[str, Any]:
    sub = work / name
    sub.mkdir()
    task_dir = write_lmeval_task(sub, prompts)
    warm_lmeval(sub, task_dir)
    exe = shutil.which("lm_eval") or str(Path(sys.executable).with_name("lm_eval"))
    out = sub / "lmeval_out"
    srv.reset()
    la0 = os.getloadavg()
    log(f"[{name}] lm-eval local-chat-completions, num_concurrent={C}: the same {len(prompts):,} prompts")
    cmd = [exe, "--model", "local-chat-completions",
           "--model_args", f"model={MODEL},base_url={srv.url}/chat/completions,num_concurrent={C},max_retries=5,"
                           f"tokenizer_backend=none,tokenized_requests=False,timeout=60",
           "--tasks", "obench_qa", "--include_path", str(task_dir), "--apply_chat_template",
           "--output_path", str(out), "--log_samples", "--batch_size", "1"]
    r = timed(cmd, env=lmeval_env(sub), log_to=sub / "lmeval.log")
    r.update(server=server_figures(srv, C), load_avg={"before": la0, "after": os.getloadavg()},
             output_bytes=sum(p.stat().st_size for p in out.rglob("*") if p.is_file()))
    r["wall_over_bound"] = r["wall_s"] / r["server"]["latency_bound_s"]
    log(f"  wall {r['wall_s']:.1f} s, latency bound {r['server']['latency_bound_s']:.1f} s "
        f"({r['wall_over_bound']:.2f}x); {r['server']['requests']:,} requests; peak RSS {r['peak_rss_mb']:.0f} MB")
    return r




def phase(name: str, cfg: ServerConfig, work: Path, *, C: int, calls: int, lmeval_calls: int,
          kill_at: float) -> dict[str, Any]:
    """One server: the uninterrupted run, lm-eval on (the first `lmeval_calls` of) its prompts, the
    killed and resumed run."""
    srv = start_server(cfg)
    res: dict[str, Any] = {"server": srv.info, "config": {"latency_mix": cfg.latency_mix, "faults": cfg.faults,
                                                          "retry_after": cfg.retry_after, "seed": cfg.seed},
                           "calls": calls}
    try:
        res["ours"] = full = uninterrupted(srv, work, f"{name}-ours", C, calls)
        if lmeval_calls and lmeval_available():
            prompts = prompts_of(Path(full["output"]))[:lmeval_calls]
            res["lmeval"] = lm = lmeval(srv, work, f"{name}-lmeval", C, prompts)
            res["lmeval_calls"] = len(prompts)
            res["comparison"] = {  # per call, so a subset compares with the whole run
                "wall_per_call": (lm["wall_s"] / len(prompts)) / (full["wall_s"] / calls),
                "wall_over_bound": lm["wall_over_bound"] / full["wall_over_bound"],
                "peak_rss": lm["peak_rss_mb"] / full["peak_rss_mb"],
                "cpu_per_call": (lm["cpu_s"] / len(prompts)) / (full["cpu_s"] / calls)}
            log(f"  lm-eval / oversight-bench: wall per call {res['comparison']['wall_per_call']:.2f}x, "
                f"peak RSS {res['comparison']['peak_rss']:.2f}x")
        elif lmeval_calls:
            log("lm-eval is not installed (pip install 'lm-eval[api]==0.4.13'): no reference")
        if kill_at:
            res["kill"] = killed_and_resumed(srv, work, f"{name}-killed", C, calls, kill_at,
                                             decisions(Path(full["output"])))
    finally:
        srv.stop()
    return res


def _la(x) -> str:
    return "/".join(f"{v:.2f}" for v in x)


def _row(label: str, r: dict[str, Any], calls: int, store: bool = True) -> str:
    s = r["server"]
    st = s["by_status"]
    t = next(iter((r.get("store", {}).get("traffic") or {}).values()), {}) if store else {}
    settled = (f"{t.get('settled_concurrency', '-')} (peak {t.get('peak_in_flight', '-')})" if t
               else f"- (peak {s['max_inflight']} at the server)")
    size = f"{r['store']['store_bytes'] / 2**20:.1f}" if store else f"{r.get('output_bytes', 0) / 2**20:.1f} (its samples)"
    return (f"| {label} | {calls:,} | {r['wall_s']:.1f} | {s['latency_bound_s']:.1f} | {r['wall_over_bound']:.2f} | "
            f"{s['requests']:,} ({st.get('200', 0):,} / {st.get('429', 0)} / {st.get('500', 0)} / {st.get('drop', 0)}) | "
            f"{t.get('resent', '-') if t else '-'} | {settled} | {r['peak_rss_mb']:.0f} | "
            f"{1000 * r['cpu_s'] / max(1, calls):.2f} | {size} | {_la(r['load_avg']['before'])} → "
            f"{_la(r['load_avg']['after'])} |")


def markdown(res: dict[str, Any]) -> str:
    m = res["machine"]
    lines = [f"Measured {m['date']} by `python benchmarks/scale_100k.py{res['argv']}` in {res['benchmark_wall_s']:.0f} s "
             f"on {m['cpus']} CPUs ({m['cpu']}), {m['memory_gib']} GiB, Python {m['python']}; load averages "
             f"(1/5/15 min) at start {_la(m['load_avg_at_start'])}, at end {_la(res['load_avg_at_end'])} "
             f"(the CPUs were shared with other engineers' work: read every ratio as measured side by side in "
             f"this run). Concurrency ceiling C={res['args']['C']} for both harnesses; fake server "
             f"{next(iter(res['phases'].values()))['server']} (uvloop with h11 where httptools is not installed).", ""]
    for name, ph in res["phases"].items():
        c = ph["config"]
        lines += [f"**{name}** phase: latency bands {c['latency_mix']} ([share, low s, high s]), faults per attempt "
                  f"{c['faults'] or 'none'}{', Retry-After ' + str(c['retry_after']) + ' s' if c['faults'] else ''}, "
                  f"seed {c['seed']}.", "",
                  "| run | calls | wall s | latency bound s (served latency / C) | wall / bound | requests at the "
                  "server (200 / 429 / 500 / dropped) | re-sent (the run's count) | settled in flight | peak RSS MB | "
                  "process CPU ms per call | on disk MiB | load before → after |",
                  "|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---|"]
        lines.append(_row("oversight-bench, uninterrupted", ph["ours"], ph["calls"]))
        if "lmeval" in ph:
            what = "the same prompts" if ph["lmeval_calls"] == ph["calls"] else f"the first {ph['lmeval_calls']:,} of those prompts"
            lines.append(_row(f"lm-eval 0.4.13 `local-chat-completions`, {what}", ph["lmeval"], ph["lmeval_calls"],
                              store=False))
            cm = ph["comparison"]
            lines += ["", f"lm-eval / oversight-bench ({name}): wall per call **{cm['wall_per_call']:.2f}x**, wall / bound "
                          f"{cm['wall_over_bound']:.2f}x, peak RSS {cm['peak_rss']:.2f}x, CPU per call {cm['cpu_per_call']:.2f}x"
                          + ("" if ph["lmeval_calls"] == ph["calls"] else
                             f" (lm-eval on {ph['lmeval_calls']:,} calls against oversight-bench on {ph['calls']:,}: "
                             "per-call figures, each with its own start-up)") + "."]
        k = ph.get("kill")
        if not k:
            lines.append("")
            continue
        b = k["before_kill"]
        lines += ["", "| kill -9 at ~{:.0%} and resume ({}) | |".format(res["args"]["kill_at"], name), "|---|---|",
                  f"| killed after | {b['wall_s']:.1f} s: the server had answered {b['answered_at_kill']:,} calls, "
                  f"{b['calls_stored']:,} were stored |",
                  f"| resume (the same command) | {k['wall_s']:.1f} s ({k['wall_s'] / ph['ours']['wall_s']:.2f} of the "
                  f"uninterrupted run), {k['server']['requests']:,} requests for {k['prompts_sent']:,} calls, peak RSS "
                  f"{k['peak_rss_mb']:.0f} MB; load {_la(k['load_avg']['before'])} → {_la(k['load_avg']['after'])} |",
                  f"| requests of the resume repeating a call stored before the kill | **{k['repeated_stored_calls']}** |",
                  f"| decision records equal to the uninterrupted run's | **{k['decisions_equal']:,} of "
                  f"{k['decisions_reference']:,}** (the resumed store holds {k['decisions_resumed']:,}) |",
                  f"| killed + resumed, total wall | {b['wall_s'] + k['wall_s']:.1f} s "
                  f"({(b['wall_s'] + k['wall_s']) / ph['ours']['wall_s']:.2f} of the uninterrupted run) |", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--realistic-calls", type=int, default=2_000,
                    help="calls of the realistic-mix phase (0: skip it); its lm-eval run gets all of them")
    ap.add_argument("--scale-calls", type=int, default=100_000, help="calls of the scale phase (0: skip it)")
    ap.add_argument("--lmeval-calls", type=int, default=20_000,
                    help="calls of the scale phase that lm-eval gets (the first ones; 0: no lm-eval there)")
    ap.add_argument("--C", type=int, default=128, help="concurrency ceiling of both harnesses")
    ap.add_argument("--kill-at", type=float, default=0.5,
                    help="share of answers after which a run is killed (0: no killed run)")
    ap.add_argument("--seed", type=int, default=0, help="the fake server's seed (latencies and faults)")
    ap.add_argument("--json", default=str(HERE / "results-100k.json"))
    ap.add_argument("--keep", action="store_true", help="keep the run directories")
    a = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="obench-100k-"))
    res: dict[str, Any] = {"machine": machine(), "args": vars(a), "phases": {},
                           "argv": "".join(f" {x}" for x in (argv if argv is not None else sys.argv[1:]))}
    t0 = time.perf_counter()
    try:
        if a.realistic_calls:
            cfg = ServerConfig(latency_mix=REALISTIC_MIX, faults=dict(REALISTIC_FAULTS), retry_after=1.0,
                               seed=a.seed, track=True)
            res["phases"]["realistic"] = phase("realistic", cfg, work, C=a.C, calls=a.realistic_calls,
                                               lmeval_calls=a.realistic_calls, kill_at=a.kill_at)
        if a.scale_calls:
            cfg = ServerConfig(latency_mix=FAST_MIX, seed=a.seed, track=True)
            res["phases"]["scale"] = phase("scale", cfg, work, C=a.C, calls=a.scale_calls,
                                           lmeval_calls=min(a.lmeval_calls, a.scale_calls), kill_at=a.kill_at)
    finally:
        if a.keep:
            log(f"run directories kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    res["benchmark_wall_s"] = time.perf_counter() - t0
    res["load_avg_at_end"] = os.getloadavg()
    Path(a.json).write_text(json.dumps(res, indent=1, default=str))
    Path(a.json).with_suffix(".md").write_text(markdown(res))
    log(f"figures written to {a.json} and {Path(a.json).with_suffix('.md')} ({res['benchmark_wall_s']:.0f} s)")
    ok = True
    for name, ph in res["phases"].items():
        k = ph.get("kill") or {"identical": None, "repeated_stored_calls": 0}
        ok = ok and k["identical"] is not False and k["repeated_stored_calls"] == 0
        print(f"{name}: wall_over_bound={ph['ours']['wall_over_bound']:.2f} resume_identical={k['identical']} "
              f"repeated_stored_calls={k['repeated_stored_calls']}"
              + (f" lmeval_wall_per_call_ratio={ph['comparison']['wall_per_call']:.2f}" if "comparison" in ph else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
