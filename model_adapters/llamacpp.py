"""`llamacpp:` — GGUF models in-process through llama-cpp-python (the embedded local default).

`llamacpp:NAME_OR_PATH[,n_ctx=4096,n_threads=<cores>,n_batch=512,debias=true]` where NAME is one
of the named local models (assembled on first use, see `local_models`) or a path to a .gguf file.

Prompts are rendered here with the model's own chat template (or a plain-text format for base
models such as gemma3-270m, which have none), so generation and judge probabilities see exactly
the same prompt. Judge probabilities come from the next-token logits after "...Answer: " read in
process: llama.cpp's echo logprobs are wrong in 0.3.36 (see the models README). A llama.cpp
context runs one sequence at a time and already uses every core, so calls run in a worker thread
under one process-wide lock; a model loaded once is shared by every adapter that names it.
`debias` is read by the CLI (position-debiased judging); the backend itself ignores it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import io
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.api import BenchError, Capabilities, Completion, MalformedResponse, Model, Spec, note_usage
from pydantic import Field

from model_adapters._batching import choice_token_ids, softmax_over
from model_adapters.options import BackendOptions, parse_options
from model_adapters.messages import plain_prompt, text_messages




def choice_probs_from_logits(logits: list[float], model: str) -> list[float]:
    """The choices' probabilities from their next-token scores; a NaN or infinite score (a broken
    model file or context) is a malformed answer, never a stored probability."""
    import math

    if not all(math.isfinite(x) for x in logits):
        shown = ", ".join(f"{x:g}" for x in logits)
        raise MalformedResponse(f"{model}: the answer tokens' scores are not all finite ({shown}); expected finite "
                                f"logits (is the model file intact?)")
    return softmax_over(logits)


class StateCache:
    """Saved llama.cpp states of a few recent prompts.

    A debiased judge asks in both answer orders and then reads both orders' probabilities; the
    orders differ early, so a single context would re-evaluate each long transcript twice. Before a
    prompt replaces a context, the context's state (KV cache of the used cells: ~12 kB per token
    for Qwen 0.5B, saved in ~20 ms) is kept here, and a later prompt restores the state sharing
    its longest prefix. Only worth it past `min_gain` tokens.
    """

    def __init__(self, slots: int = 4, min_gain: int = 64):
        self.slots = slots
        self.min_gain = min_gain
        self.states: list[tuple[Any, Any, int]] = []  # (tokens array, state buffer, bytes), oldest first
        self.restores = 0

    @staticmethod
    def common(a, b) -> int:
        import numpy as np

        m = min(len(a), len(b))
        if m == 0:
            return 0
        diff = np.flatnonzero(np.asarray(a[:m]) != np.asarray(b[:m]))
        return int(diff[0]) if diff.size else m

    def switch(self, llm: Any, tokens: list[int]) -> None:
        """Prepare `llm` to evaluate `tokens`: keep its current state if it is about to be lost,
        and restore the saved state that shares the longest prefix with `tokens`."""
        import ctypes

        import numpy as np

        current = np.array(llm.input_ids[: llm.n_tokens])
        keep = self.common(current, tokens)
        lose = len(current) - keep >= self.min_gain
        if not lose and not self.states:
            return
        from llama_cpp import llama_cpp as C

        ctx = llm._ctx.ctx
        if lose:
            size = C.llama_state_get_size(ctx)
            buf = (ctypes.c_uint8 * size)()
            n = C.llama_state_get_data(ctx, buf, size)
            # a state whose tokens the new one extends is redundant
            self.states = [s for s in self.states if self.common(s[0], current) < len(s[0])]
            self.states = (self.states + [(current, buf, n)])[-self.slots:]
        if not self.states:
            return
        best = max(range(len(self.states)), key=lambda i: self.common(self.states[i][0], tokens))
        saved, buf, n = self.states[best]
        if self.common(saved, tokens) >= keep + self.min_gain:
            if C.llama_state_set_data(ctx, buf, n) != n:
                llm.reset()
                return
            llm.input_ids[: len(saved)] = saved
            llm.n_tokens = len(saved)
            llm._requires_eval = True
            self.restores += 1


@dataclass
class Loaded:
    """One loaded llama.cpp model and its prompt formatter."""

    llm: Any
    path: str
    formatter: Any  # Jinja2ChatFormatter, or None for a base model (plain-text prompts)
    eos_text: str
    load_s: float
    choice_ids: dict = field(default_factory=dict)  # (prefix, choices) -> token ids
    states: StateCache = field(default_factory=StateCache)


_LOADED: dict[tuple[str, int], Loaded] = {}
_LOAD_LOCK = threading.Lock()
# One llama.cpp call at a time in the process, across models: each already uses every core
# (n_threads = cores), and two decoding at once (judge and agent) only thrash the CPU.
_RUN_LOCK = threading.Lock()


def _close_all() -> None:
    """Free the loaded models before interpreter shutdown: llama-cpp-python's own finaliser fails
    (and prints a traceback) when it runs after the modules it needs are torn down."""
    for loaded in _LOADED.values():
        loaded.llm.close()
    _LOADED.clear()


atexit.register(_close_all)


def resolve_path(model: str) -> tuple[str, bool]:
    """(path to the GGUF file, whether it is a named local model)."""
    from model_adapters.local_models import MODELS, model_path

    if model in MODELS:
        return str(model_path(model)), True
    path = Path(model).expanduser()
    if path.is_file():
        return str(path.resolve()), False
    raise BenchError(
        f"llamacpp model {model!r} is neither a local model name ({', '.join(MODELS)}) "
        f"nor an existing .gguf file"
    )


def _import_llama_cpp():
    try:
        import llama_cpp  # noqa: F401
        from llama_cpp import llama_chat_format
    except ImportError:
        raise BenchError("the llamacpp backend needs llama-cpp-python; run: pip install 'oversight-bench[local]'") from None
    return llama_cpp, llama_chat_format


def load(path: str, n_ctx: int, n_threads: int, n_batch: int, verbose: bool = False) -> Loaded:
    """Load (once per process and (path, n_ctx)) a GGUF model."""
    key = (path, n_ctx)
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        llama_cpp, chat_format = _import_llama_cpp()
        t0 = time.perf_counter()
        # llama.cpp logs some load notices (gemma's "using full-size SWA cache") whatever the level:
        # not verbose, they are kept out of the terminal and shown only if loading fails
        notices = io.StringIO()
        try:
            with contextlib.redirect_stderr(notices) if not verbose else contextlib.nullcontext():
                llm = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                                      n_batch=n_batch, logits_all=False, verbose=verbose)
        except (ValueError, RuntimeError) as exc:
            last = notices.getvalue().strip().splitlines()[-1:]
            raise BenchError(f"llama.cpp could not load {path}: {exc}" + (f" ({last[0]})" if last else "")) from None
        eos_id, bos_id = llm.token_eos(), llm.token_bos()
        eos = llm._model.token_get_text(eos_id) if eos_id != -1 else ""
        bos = llm._model.token_get_text(bos_id) if bos_id != -1 else ""
        template = llm.metadata.get("tokenizer.chat_template")
        formatter = chat_format.Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos) if template else None
        loaded = Loaded(llm, path, formatter, eos, time.perf_counter() - t0)
        _LOADED[key] = loaded
        return loaded


def _cores() -> int:
    """Usable cores (the affinity mask, which containers narrow, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


class LlamaCppModel(Model):
    capabilities = Capabilities(images=False, logprobs=True, multi_sample=True, continuation=True)
    max_concurrency = 1
    max_jobs = 1  # one call at a time per process: run jobs one by one so prompt prefixes stay cached

    class Options(BackendOptions):
        n_ctx: int = Field(4096, ge=16, description="a context length in tokens >= 16")
        n_threads: int | None = Field(None, ge=1, description="a whole number of threads >= 1 (default: the usable cores)")
        n_batch: int = Field(512, ge=1, description="a whole number >= 1")
        debias: bool = Field(False, description="true or false")
        verbose: bool = Field(False, description="true or false")

    def __init__(self, spec: Spec):
        super().__init__(spec)
        o = parse_options(self, spec)
        self.path, self.named = resolve_path(spec.model)
        self.n_ctx, self.n_threads, self.n_batch = o.n_ctx, o.n_threads or _cores(), o.n_batch
        self.debias, self.verbose = o.debias, o.verbose
        self._loaded: Loaded | None = None

    # -- loading and prompts ----------------------------------------------------------------------
    @property
    def loaded(self) -> Loaded:
        if self._loaded is None:
            self._loaded = load(self.path, self.n_ctx, self.n_threads, self.n_batch, self.verbose)
        return self._loaded

    def render(self, messages: list[dict]) -> tuple[str, list[str]]:
        """The prompt text up to the start of the assistant reply, and the template's stop strings."""
        msgs = text_messages(messages)
        lo = self.loaded
        if lo.formatter is None:
            prompt = plain_prompt(msgs)
            # a base model would go on to write the next "User:" turn itself
            return prompt, ["\nUser:"] if prompt.endswith("Assistant: ") else []
        return lo.formatter(messages=msgs).prompt, [lo.eos_text] if lo.eos_text else []

    def tokenize(self, text: str) -> list[int]:
        # add_bos=False: the chat templates write their own BOS, as llama-cpp-python's handler assumes
        bos = self.loaded.formatter is None
        return self.loaded.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=True)

    def count_tokens(self, messages: list[dict]) -> int:
        return len(self.tokenize(self.render(messages)[0]))

    def context_length(self) -> int:
        return self.n_ctx

    # -- calls (worker thread, under the process-wide lock) --------------------------------------------
    def _generate_sync(self, messages, n, max_tokens, temperature, stop, seed, prefix=None) -> list[Completion]:
        prompt, template_stop = self.render(messages)
        prompt += prefix or ""  # a begun reply (an agent forced from thinking to its argument) is continued
        tokens = self.tokenize(prompt)
        budget = self.n_ctx - len(tokens)
        if budget <= 0:
            raise BenchError(f"prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx} of {self.spec.model}; pass n_ctx=… in the model spec")
        outs = []
        lo = self.loaded
        with _RUN_LOCK:
            lo.states.switch(lo.llm, tokens)
            for i in range(n):
                res = lo.llm.create_completion(
                    tokens, max_tokens=min(max_tokens, budget), temperature=temperature,
                    stop=list(stop or []) + template_stop, seed=None if seed is None else (seed + i) & 0x7FFFFFFF,
                )
                usage = res.get("usage") or {}
                outs.append(Completion(res["choices"][0]["text"], usage.get("prompt_tokens", len(tokens)),
                                       usage.get("completion_tokens", 0), res["choices"][0].get("finish_reason")))
        return outs

    def _choice_probs_sync(self, messages, prefix, choices) -> list[float]:
        import numpy as np

        prompt, _ = self.render(messages)
        text = prompt + prefix
        lo = self.loaded
        with _RUN_LOCK:
            key = (prefix, tuple(choices))
            if key not in lo.choice_ids:
                try:
                    bare = lambda s: lo.llm.tokenize(s.encode("utf-8"), add_bos=False, special=False)  # noqa: E731
                    lo.choice_ids[key] = choice_token_ids(self.tokenize, text, choices, bare)
                except ValueError as exc:
                    raise BenchError(f"{self.spec.model}: {exc}") from None
            ids = lo.choice_ids[key]
            tokens = self.tokenize(text)
            if len(tokens) >= self.n_ctx:
                raise BenchError(f"prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx} of {self.spec.model}; pass n_ctx=… in the model spec")
            llm = lo.llm
            lo.states.switch(llm, tokens)
            # reuse the evaluated prefix (the same judge prompt was often just generated from)
            keep = min(StateCache.common(llm.input_ids[: llm.n_tokens], tokens), len(tokens) - 1)  # re-evaluate at least the last token for its logits
            llm.n_tokens = keep
            llm.eval(tokens[keep:])
            logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))
            probs = choice_probs_from_logits([float(logits[i]) for i in ids], self.spec.model)
        note_usage(len(tokens), 0)  # the prompt read (stored with the call; no token is generated)
        return probs

    # -- Model interface --------------------------------------------------------------------------
    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None, prefix=None):
        return await asyncio.to_thread(self._generate_sync, messages, n, max_tokens, temperature, stop, seed, prefix)

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        return await asyncio.to_thread(self._choice_probs_sync, messages, prefix, tuple(choices))

    def request_fingerprint(self) -> dict[str, Any]:
        # Named models are fixed by their digest, a file by its name and size; threads and batch
        # size do not change outputs, and `debias` is the CLI's, not the model's.
        if self.named:
            return {"model": f"llamacpp:{self.spec.model}", "n_ctx": self.n_ctx}
        return {"model": f"llamacpp:{Path(self.path).name}", "size": os.path.getsize(self.path), "n_ctx": self.n_ctx}
