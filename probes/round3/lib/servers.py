"""Run a tiny `run` whose judge is an openai: model served by a fake server on loopback."""
import time
from probe import *

KEY = "sk-probe-secret-0123456789"
QSECRET = "qcred-7f3a9b2c4d5e"


def judge_run(server, tag, *, opts=None, timeout=120, extra_args=(), limit=1, key=KEY, qsecret=None,
              protocols="qa_without_article"):
    t = tmpdir(tag)
    url = server.url + (f"?api-key={qsecret}" if qsecret else "")
    o = {"base_url": url, "api_key": key, "max_retries": 0, "timeout": 10, **(opts or {})}
    spec = "openai:probe-model," + ",".join(f"{k}={v}" for k, v in o.items())
    out = t / "run"
    t0 = time.time()
    p = ob(["run", "--judge", spec, "--agent", "scripted:default", "--tasks", "boolq", "--protocols", protocols,
            "--limit", str(limit), "--quiet", "--output", out, *extra_args], timeout=timeout)
    return p, out, time.time() - t0, t


def leaks(folder, secrets):
    hits = []
    for s in secrets:
        for f in grep_tree(folder, s.encode()):
            hits.append(f"{s[:8]}... in {f}")
    return hits
