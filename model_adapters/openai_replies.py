"""Reading what an OpenAI-compatible server answered: the completions of a chat completion, the
answer probabilities of a logprobs reply, and why a reply held none. A server's body is untrusted:
a field of the wrong shape or a log-probability that is not a number <= 0 is a `MalformedResponse`
(re-sent, then its job fails), and an odd usage count reads as 0. The requests are `openai_api`'s."""

from __future__ import annotations

import math
from typing import Any

import orjson

from oversight_bench.api import Completion, MalformedResponse, strict_json


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def parse_response(data: dict, n: int) -> list[Completion]:
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    ptoks, ctoks = token_count(usage.get("prompt_tokens")), token_count(usage.get("completion_tokens"))
    choices = sorted((c for c in data["choices"] if isinstance(c, dict)), key=_index)[:n]
    if any(not isinstance((c.get("message") or {}).get("content"), str) for c in choices):
        raise MalformedResponse("the server's answer has a choice with no text content (null); expected a chat completion")
    k = max(1, len(choices))
    return [Completion((c.get("message") or {}).get("content") or "", ptoks, ctoks // k + (1 if i < ctoks % k else 0),
                       c.get("finish_reason") if isinstance(c.get("finish_reason"), str) else None)
            for i, c in enumerate(choices)]


def parse_probs(data: dict, prefix: str, choices, prefilled: bool) -> list[float] | None:
    """P(choice) at the first generated position that follows `prefix`; None if none does. A
    log-probability that is not a number <= 0 (NaN, infinity, text) or a logprobs block of the
    wrong shape is a malformed answer (re-sent, then its job fails), never a probability."""
    listed = data.get("choices") if isinstance(data, dict) else None  # `_create` refuses an answer without the list
    first = _shaped(listed[0] if isinstance(listed, list) and listed else {}, dict, "a choice")
    block = _shaped(first.get("logprobs") or {}, dict, "logprobs")
    content = _shaped(block.get("content") or [], list, "logprobs.content")
    want = prefix.strip()
    written = ""
    for pos, tok in enumerate(content):
        tok = _shaped(tok, dict, "a logprobs.content entry")
        token = _shaped(tok.get("token") or "", str, "a token")
        at_answer = (prefilled and pos == 0) or (want and written.rstrip().endswith(want)) or (not want and pos == 0)
        if at_answer:
            probs = {c: 0.0 for c in choices}
            for alt in _shaped(tok.get("top_logprobs") or [], list, "top_logprobs"):
                alt = _shaped(alt, dict, "a top_logprobs entry")
                t = _shaped(alt.get("token") or "", str, "a token").strip()
                if t in probs:
                    probs[t] += math.exp(_logprob(alt.get("logprob")))
            total = sum(probs.values())
            if total > 0:
                return [min(1.0, probs[c] / total) for c in choices]
            if token.strip():  # the model wrote something else here: no answer to read
                return None
        written += token
    return None


def why_no_probs(data: dict, prefix: str, choices: tuple[str, ...], prefilled: bool, top: int) -> str:
    """Why `parse_probs` found no probability in `data`, in a few words."""
    first = (data.get("choices") or [{}])[0] if isinstance(data.get("choices"), list) else {}
    first = first if isinstance(first, dict) else {}
    text = ((first.get("message") or {}).get("content") or "") if isinstance(first.get("message"), dict) else ""
    block = first.get("logprobs") if isinstance(first.get("logprobs"), dict) else {}
    content = block.get("content") if isinstance(block.get("content"), list) else []
    shown = repr(one_line(text)[:40])
    if not content:
        return f"the server returned no logprobs (reply {shown})"
    if not any(isinstance(t, dict) and t.get("top_logprobs") for t in content):
        return f"the server returned no top_logprobs (reply {shown})"
    if prefilled or not prefix.strip() or prefix.strip() in text:
        return f"neither {' nor '.join(choices)} among the top {top} tokens at the answer (reply {shown})"
    return f"the reply never wrote {prefix.strip()!r} (reply {shown})"


def first_token(data: dict) -> str:
    """The first generated token of a logprobs answer, stripped ("" if none)."""
    try:
        return str(data["choices"][0]["logprobs"]["content"][0]["token"]).strip()
    except (KeyError, IndexError, TypeError):
        return ""


def _index(choice: dict) -> int:
    """A choice's `index` for sorting (0 where it is no whole number: "x" must not meet 1 in a comparison)."""
    i = choice.get("index")
    return i if isinstance(i, int) and not isinstance(i, bool) else 0


#: the most tokens one call's usage may report; a larger count is no count (it would not even fit the store)
MAX_USAGE = 10**12


def token_count(value: Any) -> int:
    """A token count from a server's usage: 0 (not reported) for anything that is not a whole number
    from 0 to MAX_USAGE (1e400, "lots", -1, 2.5, true): a server's odd usage is not its answer's fault."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_USAGE
    return value if ok else 0


def _shaped(value: Any, kind: type, what: str) -> Any:
    """`value` if it is a `kind`, else the server's answer is malformed."""
    if not isinstance(value, kind):
        raise MalformedResponse(f"the server's answer has {what} that is a {type(value).__name__}, not a {kind.__name__}; "
                                f"expected OpenAI chat-completion logprobs")
    return value


def _logprob(value: Any) -> float:
    """A log-probability as a float <= 0 (a missing one or -inf: probability 0). Rounding may put a
    certain token a hair above 0; anything else that is not a number <= 0 (NaN, +inf, text) is malformed."""
    if value is None:
        return -math.inf
    try:
        if isinstance(value, bool):
            raise TypeError
        lp = float(value)
    except (TypeError, ValueError, OverflowError):
        lp = math.nan
    if math.isnan(lp) or lp > 1e-6:
        shown = repr(value) if isinstance(value, (int, float)) else type(value).__name__
        raise MalformedResponse(f"the server's answer has a log-probability that is not a number <= 0 "
                                f"({shown[:40]}); expected log-probabilities of tokens")
    return min(lp, 0.0)


#: how the strict reader starts its refusal of NaN, Infinity and 1e999 (`yamlio.strict_json`)
NON_FINITE = "non-finite number"


def loads(raw: bytes) -> Any:
    """A server's reply: orjson (fast) where it reads it, else the one strict reader (`strict_json`), so
    a lone surrogate escape reads as U+FFFD and NaN, Infinity or `1e999` (which orjson refuses too) stay
    refused: ValueError."""
    try:
        return orjson.loads(raw)
    except ValueError:
        return strict_json(raw.decode("utf-8"))
