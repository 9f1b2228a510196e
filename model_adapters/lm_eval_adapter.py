"""`lm_eval:` — any model lm-evaluation-harness can load, as judge or agent.

`lm_eval:MODEL_TYPE[,key=value…][,concurrency=16,logprobs=true,chat_template=false]`, e.g.
`lm_eval:local-chat-completions,model=qwen,base_url=http://127.0.0.1:8000/v1/chat/completions`
or `lm_eval:hf,pretrained=Qwen/Qwen2.5-0.5B-Instruct`. Every option except the three adapter
options is handed to `get_model(MODEL_TYPE).create_from_arg_string(...)` unchanged, but for the
hf model types `pretrained=` also takes what `hf:` takes: an embedded model's name (its verified
weights, in the folder `hf:` converts them to) or a `.gguf` file (given to lm-eval as its folder
and `gguf_file`).

Calls that arrive together are sent as one `generate_until` batch (a `BatchQueue`; lm-eval groups
them by generation settings itself) in a worker thread. The chat is rendered by the LM's own
`apply_chat_template` (JSON messages for chat APIs, the tokenizer template for hf). Judge
probabilities use `loglikelihood` of "1" and "2" after the prompt plus "Answer: ", so they are
on by default only for model types that score prompts in process (hf, vllm): lm-eval's API
models score through echo logprobs, which llama.cpp servers get wrong. lm-eval has no per-request
seed; for API model types the seed is sent in the payload.
"""

from __future__ import annotations

import math
from typing import Any

from oversight_bench.api import BenchError, Capabilities, Completion, Model, Spec
from model_adapters._batching import BatchQueue, normalise, truncate_at_stop
from model_adapters.messages import plain_prompt, text_messages
from model_adapters.hf import GenRequest, ProbRequest
from model_adapters.options import BackendOptions, parse_options
from pydantic import ConfigDict, Field

INSTALL_HINT = "pip install 'oversight-bench[lm-eval]'"
IN_PROCESS_TYPES = {"hf", "hf-auto", "huggingface", "vllm", "sglang", "hf-multimodal", "vllm-vlm"}
HF_TYPES = {"hf", "hf-auto", "huggingface"}


def _arg(v: Any) -> str:
    return str(v)  # lm-eval parses "True"/"False"/numbers back itself


def hf_args(model_type: str, args: dict[str, Any]) -> dict[str, Any]:
    """`pretrained=` as `hf:` reads it (an embedded model's name, a .gguf file) for lm-eval's hf types."""
    pretrained = args.get("pretrained")
    if model_type not in HF_TYPES or not isinstance(pretrained, str):
        return args
    from model_adapters.hf import converted, resolve
    from model_adapters.local_models import MODELS

    if pretrained in MODELS:
        try:
            import torch
            import transformers
        except ImportError:
            raise BenchError("lm_eval:hf needs torch and transformers; run: pip install torch==2.13.0 "
                             "'oversight-bench[hf,lm-eval]'") from None
        return {**args, "pretrained": str(converted(pretrained, transformers, torch))}
    source, gguf_file = resolve(pretrained)
    return {**args, "pretrained": source, "gguf_file": gguf_file} if gguf_file else args


def build_lm(model_type: str, args: dict[str, Any]):
    try:
        from lm_eval.api import registry
    except ImportError:
        raise BenchError(f"the lm_eval backend needs lm-evaluation-harness; run: {INSTALL_HINT}") from None
    args = hf_args(model_type, args)
    try:
        cls = registry.get_model(model_type)
    except (ValueError, KeyError) as exc:
        raise BenchError(f"lm_eval model type {model_type!r} is unknown to lm-eval ({exc})") from None
    arg_string = ",".join(f"{k}={_arg(v)}" for k, v in args.items())
    try:
        return cls.create_from_arg_string(arg_string, {})
    except TypeError as exc:
        raise BenchError(f"lm_eval:{model_type}: bad model arguments ({exc})") from None
    except (OSError, ValueError, KeyError, RuntimeError, ImportError) as exc:  # a model that will not load
        from model_adapters.hf import one_line

        raise BenchError(f"lm_eval:{model_type} model {args.get('pretrained', args.get('model'))!r} cannot be "
                         f"loaded ({one_line(exc)})") from None


class LMEvalModel(Model):
    class Options(BackendOptions):
        """Also any lm-eval model argument (pretrained, base_url, ...), passed to the LM."""

        model_config = ConfigDict(extra="allow")

        concurrency: int = Field(16, ge=1, description="a whole number >= 1 (calls in flight)")
        chat_template: bool = Field(True, description="true or false")
        logprobs: bool | None = Field(None, description="true or false (default: true for in-process model types)")

    def __init__(self, spec: Spec, *, lm: Any = None):
        super().__init__(spec)
        o = parse_options(self, spec)
        self.model_type = spec.model
        self.lm_args = dict(o.model_extra or {})
        self.max_concurrency = o.concurrency
        self.use_template = o.chat_template
        logprobs = o.logprobs if o.logprobs is not None else self.model_type in IN_PROCESS_TYPES
        self.capabilities = Capabilities(images=False, logprobs=logprobs, multi_sample=True)
        self.api_seed = "completions" in self.model_type
        self.lm = lm if lm is not None else build_lm(self.model_type, self.lm_args)
        self.queue = BatchQueue(self._run_batch)

    def context(self, messages: list[dict], prefix: str = "") -> Any:
        """The LM's own rendering of the chat (a string, or JSON messages for chat APIs), with
        `prefix` as the start of the reply."""
        msgs = text_messages(messages)
        if self.use_template:
            try:
                rendered = self.lm.apply_chat_template(msgs)
                if isinstance(rendered, str):
                    return rendered + prefix
                if rendered is not None and not prefix:
                    return rendered
                if rendered is not None:  # chat APIs: the prefix as a final assistant message
                    return self.lm.apply_chat_template(msgs + [{"role": "assistant", "content": prefix}],
                                                       add_generation_prompt=False)
            except (NotImplementedError, AttributeError, TypeError, ValueError):
                pass
        return plain_prompt(msgs) + prefix

    def gen_kwargs(self, r: GenRequest, sample_index: int) -> dict[str, Any]:
        kw: dict[str, Any] = {"until": list(r.stop), "max_gen_toks": r.max_tokens,
                              "temperature": r.temperature, "do_sample": r.temperature > 0}
        if self.api_seed and r.seed is not None:
            kw["seed"] = r.seed + sample_index
        return kw

    # -- batch execution (worker thread) ----------------------------------------------------------
    def _run_batch(self, items: list) -> list[Any]:
        from lm_eval.api.instance import Instance

        results: list[Any] = [None] * len(items)
        gen_reqs, owners = [], []
        prob_reqs, prob_owners = [], []
        for i, it in enumerate(items):
            if isinstance(it, GenRequest):
                for j in range(it.n):
                    gen_reqs.append(Instance("generate_until", {}, (it.prompt, self.gen_kwargs(it, j)), len(gen_reqs)))
                    owners.append(i)
                results[i] = []
            else:
                for c in it.choices:
                    prob_reqs.append(Instance("loglikelihood", {}, (it.prompt, c), len(prob_reqs)))
                    prob_owners.append((i, c))
                results[i] = {}
        if gen_reqs:
            for i, text in zip(owners, self.lm.generate_until(gen_reqs, disable_tqdm=True)):
                results[i].append(Completion(truncate_at_stop(text or "", items[i].stop)))
        if prob_reqs:
            for (i, c), (logprob, _greedy) in zip(prob_owners, self.lm.loglikelihood(prob_reqs, disable_tqdm=True)):
                results[i][c] = math.exp(logprob)
            for i, it in enumerate(items):
                if isinstance(it, ProbRequest):
                    results[i] = normalise(results[i], it.choices)
        return results

    # -- Model interface --------------------------------------------------------------------------
    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        req = GenRequest(self.context(messages), n, max_tokens, float(temperature), tuple(stop or ()), seed)
        return await self.queue.submit(req)

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        if not self.capabilities.logprobs:
            return None
        return await self.queue.submit(ProbRequest(self.context(messages, prefix), tuple(choices)))

    def request_fingerprint(self) -> dict[str, Any]:
        from oversight_bench.api import redact_spec

        args = Spec("lm_eval", self.model_type, {k: v for k, v in self.lm_args.items()
                                                  if k not in ("batch_size", "num_concurrent", "max_retries", "timeout")})
        return {"model": redact_spec(args)}
