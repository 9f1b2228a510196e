"""`hf:` — a local transformers model: chat template, batched generation, device choice.

`hf:MODEL[,device=cpu|cuda|auto,dtype=auto|float32|bfloat16|float16,batch_size=8,
concurrency=64,trust_remote_code=false]` where MODEL is a hub id, a local model folder, a `.gguf`
file, or one of the embedded local models by name (`hf:smollm2-135m`): the same sha256-verified
GGUF that `llamacpp:` runs, dequantised by transformers (fp32). Reading a GGUF's metadata in Python
is slow (22 s for SmolLM2, 140 s for Gemma 3 270M on 2 busy cores), so a named model is converted once
into `<model cache>/hf/<name>-<sha>` (a transformers folder of the same fp32 weights, its tokenizer
and chat template) and loaded from there afterwards; a `.gguf` path is read as it is every time.

Concurrent calls (the runner's questions in one round) are collected by a `BatchQueue` and run as
left-padded batches, grouped by sampling parameters and stop strings because one `generate` call
shares them. Per-request seeds cannot be honoured inside a sampled batch: the group's first seed
seeds torch (greedy decoding, the default, is deterministic anyway). Judge probabilities come from
the next-token logits after the chat prompt plus "Answer: ". torch and transformers are imported
only when a model is built.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import threading
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oversight_bench.api import BenchError, Capabilities, Completion, Model, Spec, note_usage
from model_adapters._batching import BatchQueue, choice_token_ids, softmax_over, finish_of, truncate_at_stop
from model_adapters.local_models import MODELS as LOCAL_MODELS
from model_adapters.messages import plain_prompt, text_messages
from model_adapters.options import BackendOptions, parse_options
from pydantic import Field

INSTALL_HINT = "pip install torch==2.13.0 'oversight-bench[hf]'"
DTYPES = ("auto", "float32", "bfloat16", "float16")
#: written last into a converted folder: its presence means the conversion finished
DONE = "oversight-bench-converted.json"
#: one loaded model per (model, device, dtype, trust_remote_code) in the process: a judge and an
#: agent naming the same model share its weights
_LOADED: dict[tuple, "TorchBackend"] = {}
_LOAD_LOCK = threading.Lock()


def one_line(exc: BaseException) -> str:
    """An exception as one short line (transformers' messages span several)."""
    text = " ".join(str(exc).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def resolve(model: str) -> tuple[str, str | None]:
    """(what transformers loads: a hub id or folder, and the GGUF file inside it or None). An embedded
    model's name is the callers' case: they load its converted folder (`converted`)."""
    if model.lower().endswith(".gguf"):
        path = Path(model).expanduser()
        if not path.is_file():
            raise BenchError(f"hf model {model!r}: no such .gguf file; expected a hub id, a model folder, "
                             f"a .gguf file or a local model name ({', '.join(LOCAL_MODELS)})")
        path = path.resolve()
        return str(path.parent), path.name
    return model, None


def _load_pair(transformers, source: str, gguf_file: str | None, dtype: Any, trust_remote_code: bool, label: str):
    """(tokenizer, model) from a hub id, folder or GGUF; any failure is one BenchError line."""
    kw: dict[str, Any] = {"trust_remote_code": trust_remote_code}
    if gguf_file:
        kw["gguf_file"] = gguf_file
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kw)
    except Exception as exc:  # OSError, ValueError, KeyError, ImportError...: all mean "cannot load"
        raise BenchError(f"hf model {label!r}: its tokenizer cannot be loaded ({one_line(exc)})") from None
    try:
        model = transformers.AutoModelForCausalLM.from_pretrained(source, dtype=dtype, **kw)
    except Exception as exc:
        raise BenchError(f"hf model {label!r} cannot be loaded ({one_line(exc)})") from None
    return tokenizer, model


def _untied(state: dict) -> dict:
    """The state dict with each shared tensor once, under its input-embedding name: tied output
    weights are left out, as save_pretrained leaves them (vllm and transformers re-tie them)."""
    out, seen = {}, set()
    for key, tensor in sorted(state.items(), key=lambda kv: kv[0].startswith("lm_head")):
        ident = (tensor.data_ptr(), tuple(tensor.shape))
        if ident not in seen:
            seen.add(ident)
            out[key] = tensor.contiguous()
    return out


def converted(name: str, transformers, torch) -> Path:
    """The transformers folder of a named local model, converted once from its verified GGUF."""
    import json

    from model_adapters.local_models import CACHE_ENV, MODELS, cache_dir, model_path

    target = cache_dir() / "hf" / f"{name}-{MODELS[name].sha256[:12]}"
    if (target / DONE).is_file():
        return target
    gguf = model_path(name)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create {target.parent} ({exc}); set {CACHE_ENV} to a writable directory") from None
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be converting the same model
        if (target / DONE).is_file():
            return target
        tokenizer, model = _load_pair(transformers, str(gguf.parent), gguf.name, torch.float32, False, name)
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        try:
            # save_pretrained refuses a model loaded from GGUF ("quantized"), though its weights are
            # plain dequantised tensors: write them and the config without the GGUF marker
            from safetensors.torch import save_file

            tokenizer.save_pretrained(tmp)
            if hasattr(model.config, "quantization_config"):
                del model.config.quantization_config
            model.config.architectures = [type(model).__name__]  # what save_pretrained records (vllm reads it)
            model.config.save_pretrained(tmp)
            model.generation_config.save_pretrained(tmp)
            save_file(_untied(model.state_dict()), str(tmp / "model.safetensors"), metadata={"format": "pt"})
            (tmp / DONE).write_text(json.dumps({"from": str(gguf), "sha256": MODELS[name].sha256,
                                                "transformers": transformers.__version__}))
            for f in tmp.iterdir():  # mkdtemp and safetensors make them private; the cache may be shared
                os.chmod(f, 0o644)
            os.chmod(tmp, 0o755)
            shutil.rmtree(target, ignore_errors=True)  # a folder left without its DONE marker
            os.replace(tmp, target)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise BenchError(f"hf model {name!r}: cannot write its converted copy under {target.parent} ({exc}); "
                             f"set {CACHE_ENV} to a writable directory with room") from None
        except Exception as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise BenchError(f"hf model {name!r}: its GGUF cannot be converted for transformers ({one_line(exc)})") from None
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return target


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
        if dtype not in DTYPES:
            raise BenchError(f"hf model {model_id!r}: unknown dtype {dtype!r}; expected {', '.join(DTYPES)}")
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        if model_id in LOCAL_MODELS:
            source, gguf_file = str(converted(model_id, transformers, torch)), None
        else:
            source, gguf_file = resolve(model_id)
        self.tokenizer, self.model = _load_pair(transformers, source, gguf_file, torch_dtype, trust_remote_code, model_id)
        try:
            self.model.to(device)
        except Exception as exc:  # no such device, no CUDA build, out of memory
            raise BenchError(f"hf model {model_id!r} cannot be moved to device {device!r} ({one_line(exc)}); "
                             f"expected cpu, cuda, cuda:N or auto") from None
        self.model.eval()
        self.tokenizer.padding_side = "left"  # decoder-only batches must end at the same position
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.templated = bool(getattr(self.tokenizer, "chat_template", None))
        # adapters sharing this backend run their batches in their own threads; a fast tokenizer
        # used from two threads at once fails ("Already borrowed"), and the cores are busy anyway
        self.lock = threading.RLock()

    def chat_prompt(self, messages: list[dict]) -> str:
        if self.templated:
            with self.lock:
                return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return plain_prompt(messages)

    def _encode(self, texts: list[str]):
        # a chat template writes its own special tokens; a plain prompt gets the tokenizer's BOS,
        # as llama.cpp gives a base model
        return self.tokenizer(texts, return_tensors="pt", padding=True,
                              add_special_tokens=not self.templated).to(self.device)

    def tokenize(self, text: str) -> list[int]:
        with self.lock:
            return self.tokenizer(text, add_special_tokens=not self.templated)["input_ids"]

    def context_length(self) -> int | None:
        return getattr(self.model.config, "max_position_embeddings", None)

    def generate(self, prompts: list[str], *, n: int, max_tokens: int, temperature: float, seed: int | None,
                 stop: tuple[str, ...] = ()):
        """-> per prompt, n (text, prompt_tokens, completion_tokens). Rows end at EOS or at a stop
        string (the caller cuts the text there), so a thinking phase does not run to its budget."""
        with self.lock:
            return self._generate(prompts, n=n, max_tokens=max_tokens, temperature=temperature, seed=seed, stop=stop)

    def _generate(self, prompts, *, n, max_tokens, temperature, seed, stop):
        torch = self.torch
        enc = self._encode(prompts)
        sample = temperature > 0
        if sample and seed is not None:
            torch.manual_seed(seed)
        kwargs = {"do_sample": sample, "max_new_tokens": max_tokens, "num_return_sequences": n,
                  "pad_token_id": self.tokenizer.pad_token_id}
        if sample:
            kwargs["temperature"] = temperature
        else:  # a checkpoint's own sampling defaults would only warn under greedy decoding
            kwargs.update(temperature=None, top_p=None, top_k=None)
        if stop:
            kwargs.update(stop_strings=list(stop), tokenizer=self.tokenizer)
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
        with self.lock:
            enc = self._encode(prompts)
            # left padding: positions count from each row's first real token, as they would unpadded
            positions = (enc["attention_mask"].cumsum(dim=1) - 1).clamp(min=0)
            with torch.inference_mode():
                last = self.model(**enc, position_ids=positions).logits[:, -1, :].float()
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
            with _LOAD_LOCK:
                if self._args not in _LOADED:
                    _LOADED[self._args] = TorchBackend(*self._args)
            self._backend = _LOADED[self._args]
        return self._backend

    def prompt(self, messages: list[dict]) -> str:
        return self.backend.chat_prompt(text_messages(messages))

    # -- batch execution (worker thread) ----------------------------------------------------------
    def _run_batch(self, items: list[GenRequest | ProbRequest]) -> list[Any]:
        results: list[Any] = [None] * len(items)
        groups: dict[tuple, list[int]] = defaultdict(list)
        for i, it in enumerate(items):
            key = ("probs", it.choices) if isinstance(it, ProbRequest) else ("gen", it.n, it.max_tokens, it.temperature, it.stop)
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
        _, n, max_tokens, temperature, stop = key
        rows = be.generate(prompts, n=n, max_tokens=max_tokens, temperature=temperature, seed=reqs[0].seed, stop=stop)
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
        prompt = self.prompt(messages) + prefix
        probs = await self.queue.submit(ProbRequest(prompt, tuple(choices)))
        note_usage(len(self.backend.tokenize(prompt)), 0)  # the prompt read (stored with the call)
        return probs

    def count_tokens(self, messages) -> int:
        return len(self.backend.tokenize(self.prompt(messages)))

    def context_length(self) -> int | None:
        return self.backend.context_length()

    def request_fingerprint(self) -> dict[str, Any]:
        # device and batch size do not change greedy outputs; dtype does. A named model is fixed by
        # its digest, a .gguf file by its name and size (as llamacpp: keys them)
        model = self.spec.model
        if model.lower().endswith(".gguf") and model not in LOCAL_MODELS:
            path = Path(model).expanduser()
            return {"model": f"hf:{path.name}", "size": path.stat().st_size, "dtype": self._args[2]}
        return {"model": f"hf:{model}", "dtype": self._args[2]}
