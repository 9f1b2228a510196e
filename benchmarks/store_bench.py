"""The store alone: CPU and event-loop time per job, one commit per write vs group commits.

    python benchmarks/store_bench.py [--jobs 20000]

Each job is what the runner does for a one-call job: compute the key, look it up, store the call,
store the job's records. "sync" commits each write on the caller's thread (the store outside a
run); "batched" is the background group-commit writer a run uses.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path


def bench(mode: str, n: int) -> dict:
    from oversight_bench.rundir.store import Store, request_key

    d = Path(tempfile.mkdtemp(prefix=f"obench-store-{mode}-"))
    st = Store.open(d, write=True)
    if mode == "batched":
        st.begin_batching()
    fields = dict(judge="j", agent="a", protocol="qa", task="t", question_id="q", assignment=None,
                  answer_order="correct_first")
    req = {"kind": "generate", "messages": [{"role": "user", "content": "x" * 600}], "n": 1}
    c0, t0 = time.process_time(), time.perf_counter()
    for i in range(n):
        req["seed"] = i
        k = request_key(req)
        st.get_call(k)
        st.put_call(k, model="m", request=req, response={"texts": ["Answer: 1"]}, context={"role": "judge"},
                    prompt_tokens=1, completion_tokens=1, latency_s=0.1)
        st.write_job(f"job{i}", fields, [], {"answer": 1, "raw": "Answer: 1"})
    loop_us = (time.perf_counter() - t0) / n * 1e6  # time the caller (the event loop) was busy
    st.close()  # waits for the writer: its CPU is included below
    cpu_us = (time.process_time() - c0) / n * 1e6
    shutil.rmtree(d)
    return {"mode": mode, "cpu_us_per_job": cpu_us, "caller_us_per_job": loop_us}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=20000)
    a = ap.parse_args(argv)
    for mode in ("sync", "batched", "sync", "batched"):
        r = bench(mode, a.jobs)
        print(f"{mode:<8} CPU {r['cpu_us_per_job']:6.1f} us/job (all threads)   "
              f"caller busy {r['caller_us_per_job']:6.1f} us/job", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
