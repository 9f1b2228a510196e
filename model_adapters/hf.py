"""`hf:` — a local transformers model: chat template, batched generation, device choice.

`hf:MODEL_ID_OR_PATH[,device=cpu|cuda|auto,dtype=auto|float32|bfloat16|float16,batch_size=8,
concurrency=64,trust_remote_code=false]`

Concurrent calls (the runner's questions in one round) are collected by a `BatchQueue` and run as
left-padded batches, grouped by sampling parameters because one `generate` call shares them.
Per-request seeds cannot be honoured inside a sampled batch: the group's first seed seeds torch
(greedy decoding, the default, is deterministic anyway). Judge probabilities come from the
next-token logits after the chat prompt plus "Answer: ". torch and transformers are imported
only when a model is built.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from oversight_bench.api import BenchError, Capabilities, Completion, Model, Spec
from model_adapters._batching import BatchQueue, choice_token_ids, softmax_over, finish_of, truncate_at_stop
from model_adapters.messages import plain_prompt, text_messages
from model_adapters.options import BackendOptions, parse_options
from pydantic import Field

INSTALL_HINT = "pip install torch==2.13.0 'oversight-bench[hf]'"


@dataclass
class GenRequest:
    prompt: Any  # prompt text (hf) or chat messages (vllm)
    n: int
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    seed: int | None
    #: vllm: the reply begun (an assistant message ends `prompt` and is continued); hf writes it
    #: into the prompt text instead
    continued: bool = False


@dataclass
class ProbRequest:
    prompt: Any  # prompt text ending in the prefix (hf) or (messages, prefix) (vllm)
    choices: tuple[str, ...]


class TorchBackend:
    """The only part that touches torch/transformers: load, batched generate, next-token logits."""

    def __init__(self, model_id: str, device: str, dtype: str, trust_remote_code: bool):
        try:
            import torch
            import transformers
        except ImportError:
            raise BenchError(f"the hf backend needs torch and transformers; run: {INSTALL_HINT}") from None
        self.torch = torch
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype, None)
        if torch_dtype is None:
            raise BenchError(f"hf model: unknown dtype {dtype!r}; expected auto, float32, bfloat16 or float16")
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(model_id, trust_remote_code=trust_remote_code)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(
                model_id, torch_dtype=torch_dtype, trust_remote_code=trust_remote_code).to(device)
        except OSError as exc:
            raise BenchError(f"hf model {model_id!r} cannot be loaded: {exc}") from None
        self.model.eval()
        self.tokenizer.padding_side = "left"  # decoder-only batches must end at the same position
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    def chat_prompt(self, messages: list[dict]) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return plain_prompt(messages)

    def tokenize(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def generate(self, prompts: list[str], *, n: int, max_tokens: int, temperature: float, seed: int | None):
        """-> per prompt, n (text, prompt_tokens, completion_tokens)."""
        torch = self.torch
        enc = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        sample = temperature > 0
        if sample and seed is not None:
            torch.manual_seed(seed)
        kwargs = {"do_sample": sample, "max_new_tokens": max_tokens, "num_return_sequences": n,
                  "pad_token_id": self.tokenizer.pad_token_id}
        if sample:
            kwargs["temperature"] = temperature
        with torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        width = enc["input_ids"].shape[1]
        new = out[:, width:]
        texts = self.tokenizer.batch_decode(new, skip_special_tokens=True)
        ptoks = enc["attention_mask"].sum(dim=1).tolist()
        pad, eos = self.tokenizer.pad_token_id, self.tokenizer.eos_token_id
        ctoks = [int(((row != pad) & (row != eos)).sum()) for row in new]
        return [[(texts[i * n + j], ptoks[i], ctoks[i * n + j]) for j in range(n)] for i in range(len(prompts))]

    def next_token_logits(self, prompts: list[str], ids: list[list[int]]) -> list[list[float]]:
        torch = self.torch
        enc = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        with torch.inference_mode():
            last = self.model(**enc).logits[:, -1, :].float()
        return [[float(last[i, t]) for t in row] for i, row in enumerate(ids)]


class HFModel(Model):
    capabilities = Capabilities(images=False, logprobs=True, multi_sample=True, continuation=True)

    class Options(BackendOptions):
        concurrency: int | None = Field(None, ge=1, description="a whole number >= 1 (calls in flight; default: 64 or batch_size)")
        device: str = Field("auto", description="a torch device such as cpu, cuda or auto")
        dtype: str = Field("auto", description="a torch dtype such as float16 or auto")
        batch_size: int = Field(8, ge=1, description="a whole number >= 1")
        trust_remote_code: bool = Field(False, description="true or false")

    def __init__(self, spec: Spec, *, backend: Any = None):
        super().__init__(spec)
        o = parse_options(self, spec)
        self.batch_size = o.batch_size
        self.max_concurrency = o.concurrency or max(64, self.batch_size)
        self._backend = backend
        self._args = (spec.model, o.device, o.dtype, o.trust_remote_code)
        if backend is None:
            self.backend  # fail now (missing torch, bad id) rather than at the first call
        self.queue = BatchQueue(self._run_batch)
        self._choice_ids: dict[tuple, list[int]] = {}

    @property
    def backend(self):
        if self._backend is None:
            self._backend = TorchBackend(*self._args)
        return self._backend

    def prompt(self, messages: list[dict]) -> str:
        return self.backend.chat_prompt(text_messages(messages))

    # -- batch execution (worker thread) ----------------------------------------------------------
    def _run_batch(self, items: list[GenRequest | ProbRequest]) -> list[Any]:
        results: list[Any] = [None] * len(items)
        groups: dict[tuple, list[int]] = defaultdict(list)
        for i, it in enumerate(items):
            key = ("probs", it.choices) if isinstance(it, ProbRequest) else ("gen", it.n, it.max_tokens, it.temperature)
            groups[key].append(i)
        for key, idxs in groups.items():
            for start in range(0, len(idxs), self.batch_size):
                chunk = idxs[start : start + self.batch_size]
                try:
                    outs = self._run_group(key, [items[i] for i in chunk])
                except Exception as exc:  # one bad group must not fail the others
                    outs = [exc] * len(chunk)
                for i, out in zip(chunk, outs):
                    results[i] = out
        return results

    def _run_group(self, key: tuple, reqs: list) -> list[Any]:
        be = self.backend
        prompts = [r.prompt for r in reqs]
        if key[0] == "probs":
            choices = key[1]
            ids = [self._ids_for(r.prompt, choices) for r in reqs]
            return [softmax_over(row) for row in be.next_token_logits(prompts, ids)]
        _, n, max_tokens, temperature = key
        rows = be.generate(prompts, n=n, max_tokens=max_tokens, temperature=temperature, seed=reqs[0].seed)
        return [[Completion(truncate_at_stop(t, r.stop), p, c, finish_of(t, r.stop, c, max_tokens)) for t, p, c in row]
                for r, row in zip(reqs, rows)]

    def _ids_for(self, prompt: str, choices: tuple[str, ...]) -> list[int]:
        # the prefix ends every judge prompt, so the ids depend on the tail only; cache by it
        key = (prompt[-16:], choices)
        if key not in self._choice_ids:
            try:
                self._choice_ids[key] = choice_token_ids(self.backend.tokenize, prompt, choices)
            except ValueError as exc:
                raise BenchError(f"{self.spec.model}: {exc}") from None
        return self._choice_ids[key]

    # -- Model interface --------------------------------------------------------------------------
    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None, prefix=None):
        req = GenRequest(self.prompt(messages) + (prefix or ""), n, max_tokens, float(temperature), tuple(stop or ()), seed)
        return await self.queue.submit(req)

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        return await self.queue.submit(ProbRequest(self.prompt(messages) + prefix, tuple(choices)))

    def request_fingerprint(self) -> dict[str, Any]:
        # device and batch size do not change greedy outputs; dtype does
        return {"model": f"hf:{self.spec.model}", "dtype": self._args[2]}
