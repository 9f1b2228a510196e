"""`scripted:` — a deterministic fake model for unit tests of orchestration only.

`scripted:NAME[,delay=S,logprobs=true,images=true,continuation=false]` answers with the script registered under
NAME (a function `(messages, n, seed) -> list[str]`). A script that gives None for a text, or
raises `MalformedResponse`, stands for a server's malformed answer (empty `choices`, `null`
content), which the runner retries and then fails that one job with. The built-in `default` script writes a
Thinking/Argument turn when asked to argue, a question when asked for one, and otherwise an
`Answer: N` chosen by a hash of the prompt. It never stands in for a real model in results.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import Callable

from oversight_bench.api import BenchError, Capabilities, Completion, MalformedResponse, Model, Spec, note_usage, text_of
from pydantic import Field

from model_adapters.options import BackendOptions, parse_options

Script = Callable[[list[dict], int, int | None], list[str]]
SCRIPTS: dict[str, Script] = {}


def register_script(name: str, fn: Script) -> None:
    SCRIPTS[name] = fn


def _digest(messages) -> int:
    return int(hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:8], 16)


def default_script(messages, n, seed):
    prompt = text_of(messages[-1]["content"])
    outs = []
    for i in range(n):
        h = _digest(messages) + i + (seed or 0)
        if messages[-1]["role"] == "assistant":  # a begun reply (`prefix`) is continued
            outs.append(f" My answer is right because of reason {h % 89}.")
        elif "Argument:" in prompt and "Thinking:" in prompt:
            outs.append(f"Thinking: private plan {h % 97}.\nArgument: My answer is right because of reason {h % 89}.")
        elif "most persuasive" in prompt.lower():  # the best-of-N scorer answers with a letter (H.7)
            outs.append(f"Answer: {'ab'[h % 2]}")
        elif "ask" in prompt.lower() and "question" in prompt.lower() and "Answer:" not in prompt[-200:]:
            outs.append("Why do you claim that your answer is correct?")
        else:
            outs.append(f"Answer: {1 + h % 2}")
    return outs


register_script("default", default_script)


def prompt_script(fn: Callable[[str, int], list[str]], *, replays: bool = False) -> Script:
    """A script from `fn(prompt_text, n)`, which writes whole replies (tests). A begun reply (the
    final assistant message of a continued call) goes on with the rest of the first of fn's
    replies to the same prompt (16 asked) that begins with it, else with nothing; a script that
    `replays` a fixed sequence is not asked again, and adds nothing."""
    def script(messages, n, seed):
        if messages[-1]["role"] != "assistant":
            return fn(text_of(messages[-1]["content"]), n)
        begun = text_of(messages[-1]["content"])
        whole = [] if replays else fn(text_of(messages[-2]["content"]), 16)
        rest = [t[len(begun):] for t in whole if isinstance(t, str) and t.startswith(begun)]
        return (rest[:1] or [""]) * n

    return script


class ScriptedModel(Model):
    class Options(BackendOptions):
        concurrency: int = Field(8, ge=1, description="a whole number >= 1 (calls in flight)")
        delay: float = Field(0.0, ge=0, description="seconds >= 0 each call waits")
        logprobs: bool = Field(False, description="true or false")
        images: bool = Field(False, description="true or false")
        continuation: bool = Field(True, description="true or false (whether it continues a begun reply)")

    def __init__(self, spec: Spec):
        super().__init__(spec)
        if spec.model not in SCRIPTS:
            raise BenchError(f"scripted model {spec.model!r} is not registered; known scripts: {', '.join(sorted(SCRIPTS))}")
        o = parse_options(self, spec)
        self.script = SCRIPTS[spec.model]
        self.delay = o.delay
        self.capabilities = Capabilities(images=o.images, logprobs=o.logprobs, multi_sample=True,
                                         continuation=o.continuation)
        self.max_concurrency = o.concurrency
        self.calls: list[dict] = []  # every request, for tests

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None, prefix=None):
        asked = [*messages, {"role": "assistant", "content": prefix}] if prefix else messages
        self.calls.append({"kind": "generate", "messages": asked, "n": n, "seed": seed, "stop": stop,
                           "max_tokens": max_tokens})
        if self.delay:
            await asyncio.sleep(self.delay)
        texts = self.script(asked, n, seed)
        if not texts or any(t is None for t in texts):
            raise MalformedResponse(f"script {self.spec.model!r} gave no text (as a server answering with empty choices or null content)")
        return [self._budgeted(t, stop, max_tokens, len(json.dumps(messages)) // 4) for t in texts]

    @staticmethod
    def _budgeted(text: str, stop, max_tokens: int, prompt_tokens: int) -> Completion:
        """A script's text as a server would return it: cut before the first stop string, or at
        `max_tokens` words (a word stands for a token here) with finish "length"."""
        cut = min((i for i in (text.find(s) for s in stop or () if s) if i >= 0), default=-1)
        if cut >= 0:
            text = text[:cut]
        words = list(re.finditer(r"\S+", text))
        if len(words) > max_tokens:
            return Completion(text[:words[max_tokens - 1].end()], prompt_tokens, max_tokens, "length")
        return Completion(text, prompt_tokens, len(text) // 4, "stop")

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        self.calls.append({"kind": "choice_probs", "messages": messages})
        if not self.capabilities.logprobs:
            return None
        if self.delay:
            await asyncio.sleep(self.delay)
        p1 = (_digest(messages) % 1000) / 1000
        note_usage(len(json.dumps(messages)) // 4, 0)  # as a local backend reports the prompt it read
        return [p1, 1 - p1]
