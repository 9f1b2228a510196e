"""How fast `oversight-bench view` answers on a large store: a synthetic run directory of N decision
records (default 100,000: one room each, a third QA, a third consultancy with 2 turns, a third debate
with 4; one judge call per decision), written through the run-directory API (`WritableRun`, the
store's writer), then served by `view` in a subprocess and timed over real HTTP.

    python benchmarks/view_bench.py [--records 100000] [--dir /tmp/view-bench] [--out benchmarks]

Reported: the store's size, the server's start, the list's first page (answered at once from the
store while the index is built in the background), the time until the full index is ready, and per
page the first and median answer time: a sort, filters (text, judge wrong, flag), a deep page, a room.
The goal (issue 23): the list's first page answers in under 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from oversight_bench.questions import ORDERS, Question  # noqa: E402
from oversight_bench.rundir import WritableRun  # noqa: E402

SERVE = ("import human_judging; from oversight_bench.registry import get_registry; r = get_registry()\n"
         "if not r.pm.is_registered(human_judging): r.add_module_plugin('web', 'oversight-bench', 'bench', module=human_judging)\n"
         "from oversight_bench.cli import cli, main; r.pm.hook.register_commands(cli=cli); main()")
WORDS = ("the captain said that the ship landed on the red moon at dawn and the crew saw blue sands "
         "while the engine cooled and nobody spoke of the storm").split()


def _text(rng, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def generate(directory: Path, n_records: int, seed: int = 0) -> float:
    """Write the synthetic store; returns the seconds it took."""
    import random

    rng = random.Random(seed)
    started = time.perf_counter()
    judge, agent = "sim:judge", "sim:agent"
    run = WritableRun(directory, fresh=True, what="benchmark store")
    store = run.store
    try:
        run.begin({"judge": judge, "agent": agent, "seed": seed, "kind": "synthetic", "commit": "benchmark"},
                  {"kind": "synthetic", "judge": judge, "agent": agent, "seed": seed})
        n_questions = max(1, n_records // 10)
        qs = [Question(id=f"q{i}", task=("quality", "boolq", "mmlu")[i % 3], task_type="closed" if i % 3 == 2 else "extractive",
                       question=f"Question {i}: what did the captain see? {_text(rng, 8)}", correct="blue sands",
                       incorrect="red dust", article=None if i % 3 == 2 else _text(rng, 300)) for i in range(n_questions)]
        store.put_questions(qs)
        store.begin_batching()
        protocols = ("qa_without_article", "consultancy", "debate")
        for k in range(n_records):
            q = qs[k % n_questions]
            proto = protocols[(k // n_questions) % 3]
            order = ORDERS[(k // (3 * n_questions)) % 2]
            variant = k // (6 * n_questions)
            assignment = ("correct", "incorrect")[variant % 2] if proto == "consultancy" else None
            ci = 1 if order == "correct_first" else 2
            fields = {"judge": judge, "agent": agent, "protocol": proto, "task": q.task, "question_id": q.id,
                      "assignment": assignment, "answer_order": order}
            key = f"{proto}|{q.task}|{q.id}|{assignment or '-'}|{order}|v{variant}"
            turns = []
            if proto != "qa_without_article":
                speakers = ["Consultant"] * 2 if proto == "consultancy" else ["Alice", "Bob", "Alice", "Bob"]
                for j, speaker in enumerate(speakers):
                    side = (ci if assignment == "correct" else 3 - ci) if proto == "consultancy" else 1 + j % 2
                    shown = f"I defend answer {side}. {_text(rng, 60)} <v_passage>{_text(rng, 6)}</v_passage>"
                    turns.append({"round": 1 + j // (1 if proto == "consultancy" else 2), "role":
                                  "consultant" if proto == "consultancy" else "debater", "speaker": speaker,
                                  "content": f"Thinking:\n{_text(rng, 40)}\nArgument: {shown}", "shown": shown,
                                  "defends": side, "extra": {"model": agent, "budget": {
                                      "thinking_tokens": 60, "argument_tokens": 90, "forced": rng.random() < 0.1,
                                      "cut": rng.random() < 0.05, "continued": None}}})
            answer = None if rng.random() < 0.03 else rng.choice((1, 2))
            p = rng.uniform(0.5, 0.99)
            decision = {"raw": "" if answer is None else f"Answer: {answer}", "answer": answer,
                        "correct": None if answer is None else answer == ci,
                        "probs": None if answer is None else ([p, 1 - p] if answer == 1 else [1 - p, p]),
                        "extra": {}, "correct_index": ci, "answers": list(q.answers(order))}
            request = {"kind": "generate", "model": judge, "messages": [{"role": "user", "content": f"{key} {_text(rng, 80)}"}]}
            store.put_call(f"{k:064x}", model=judge, request=request, response={"texts": [decision["raw"]]},
                           context={"role": "judge", "tag": "judge", **{f: fields[f] for f in
                                    ("protocol", "task", "question_id", "assignment", "answer_order")}},
                           prompt_tokens=400, completion_tokens=4, latency_s=0.2)
            store.write_job(key, fields, turns, decision)
    finally:
        run.close()
    return time.perf_counter() - started


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[float, str]:
    t = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as resp:
        body = resp.read().decode()
    return time.perf_counter() - t, body


def measure(directory: Path, repeats: int = 5) -> dict:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", SERVE, "view", str(directory), "--port", str(port)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"view exited: {proc.stdout.read()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        listening = time.perf_counter() - started
        first_s, body = _get(base + "/")
        cold = time.perf_counter() - started
        preview = 'id="indexing"' in body
        while 'id="count"' not in body:  # the index is built in the background: wait for it
            time.sleep(0.1)
            body = _get(base + "/")[1]
        indexed = time.perf_counter() - started
        room = re.search(r'href="(/room/[0-9a-f]+)"', body).group(1)
        pages = {"list, first page": "/", "sorted by question (desc)": "/?sort=-question",
                 "sorted by P(correct)": "/?sort=p_correct", "text filter": "/?q=question+123",
                 "judge wrong": "/?wrong=1", "flag: cut": "/?flag=cut", "protocol debate, page 200": "/?protocol=debate&page=200",
                 "a room": room}
        out = {"start_to_listening_s": listening, "start_to_first_page_s": cold, "first_page_s": first_s,
               "first_page_was_preview": preview, "start_to_index_ready_s": indexed, "pages": {}}
        for name, path in pages.items():
            times = [_get(base + path)[0] for _ in range(repeats)]
            out["pages"][name] = {"first_s": times[0], "median_s": statistics.median(times), "path": path}
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--dir", default="/tmp/view-bench")
    ap.add_argument("--out", default=str(REPO / "benchmarks"), help="folder for view_results.json and view_results.md")
    args = ap.parse_args()
    directory = Path(args.dir)
    gen_s = None
    if not (directory / "results.sqlite").exists():
        gen_s = generate(directory, args.records)
    size = sum(p.stat().st_size for p in directory.iterdir() if p.is_file())
    res = {"records": args.records, "store_bytes": size, "generate_s": gen_s, **measure(directory),
           "machine": {"cpus": os.cpu_count(), "load_average_1m": os.getloadavg()[0], "python": platform.python_version()},
           "measured": time.strftime("%Y-%m-%d")}
    out = Path(args.out)
    (out / "view_results.json").write_text(json.dumps(res, indent=1))
    lines = [f"# `oversight-bench view` on a synthetic store of {args.records:,} decision records",
             "", f"Store {size / 1e6:.0f} MB; {os.cpu_count()} CPUs, 1-minute load average {res['machine']['load_average_1m']:.1f} "
             f"(shared machine); {res['measured']}.", "",
             f"* server start (Python, plugins, opening the store read-only) to listening: {res['start_to_listening_s']:.2f} s",
             f"* the list's first page, first request: {res['first_page_s'] * 1000:.0f} ms"
             + (" (the preview read straight from the store while the index is built)" if res["first_page_was_preview"] else ""),
             f"* start to the full index (sorting, filters, every run's verdicts): {res['start_to_index_ready_s']:.2f} s",
             "* afterwards, each page (5 requests each; the first of a new sort or filter computes it, the rest hit its cache):", "",
             "| page | first (ms) | median of 5 (ms) |", "|---|---:|---:|"]
    lines += [f"| {name} | {p['first_s'] * 1000:.0f} | {p['median_s'] * 1000:.0f} |" for name, p in res["pages"].items()]
    (out / "view_results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
