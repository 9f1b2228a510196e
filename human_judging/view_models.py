"""What a room's page shows, built from its stored records: each turn (its thinking apart, its
calls), each judge's decision, the exact requests sent (`_call_view`), and the passage with the
quoted spans highlighted (`_highlight`, matched in linear time)."""

from __future__ import annotations

import bisect
import html
import json
import re
from typing import Any, Callable

from markupsafe import Markup

from oversight_bench.api import CallRecord, DecisionRecord, TurnRecord, is_argument, redact_text, split_thinking

_QUOTE_TAG = re.compile(r"<(/?)(v_passage|u_passage|quote)>")


def _quotes(text: str) -> list[tuple[str, bool]]:
    """(quoted text, verified) of each `<tag>...</tag>` of a turn, as `<(tag)>(.*?)</\\1>` finds them
    left to right, in linear time: the tags are found once and each opening is paired with the first
    closing of its name after it (the lazy regex rescans to the end for every unclosed opening:
    30,000 unclosed tags took minutes)."""
    tags = list(_QUOTE_TAG.finditer(text))
    next_close: list[int | None] = [None] * len(tags)
    later: dict[str, int] = {}
    for i in range(len(tags) - 1, -1, -1):
        next_close[i] = later.get(tags[i].group(2))
        if tags[i].group(1):
            later[tags[i].group(2)] = i
    out, i = [], 0
    while i < len(tags):
        j = next_close[i]
        if tags[i].group(1) or j is None:
            i += 1
            continue
        out.append((text[tags[i].end():tags[j].start()], tags[i].group(2) == "v_passage"))
        i = j + 1
    return out


def _call_text(call: CallRecord) -> str:
    """The text of a call's messages and replies, for telling whose call it was."""
    parts = []
    for m in call.request.messages or []:
        c = m.get("content")  # a chat message: a dict as the backend's API has it
        parts += [c] if isinstance(c, str) else [x.get("text", "") for x in c or [] if isinstance(x, dict)]
    parts += call.response.texts or []
    return "\n".join(p for p in parts if isinstance(p, str))


def _mentions(call: CallRecord, turns: list[TurnRecord]) -> bool:
    """Whether a call's prompt or reply holds one of the room's turns: several rooms sharing a job's
    fields (imported rooms of one question) are told apart so."""
    text = _call_text(call)
    for t in turns:
        for s in (t.content, t.shown):
            if isinstance(s, str) and len(s.strip()) >= 20 and s.strip()[:200] in text:
                return True
    return False


def _messages_view(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A request's chat messages as turns: role, text (a multi-part content's text parts joined) and
    how many parts were not text (images)."""
    out = []
    for m in messages:
        content, other = m.get("content"), 0
        if isinstance(content, list):
            parts = [x for x in content if isinstance(x, dict)]
            text = "\n".join(str(x["text"]) for x in parts if isinstance(x.get("text"), str))
            other = sum(1 for x in parts if not isinstance(x.get("text"), str))
        else:
            text = _text(content) or ""
        out.append({"role": str(m.get("role") or "?"), "text": redact_text(text), "images": other})
    return out


#: request fields shown beside the messages (the rest stay in the raw JSON); `records.Request` names
#: none of them (a backend's own), so they are read from its fields beyond the named ones
_PARAMS = ("n", "max_tokens", "temperature", "seed", "stop")


def _tokens(c: CallRecord, kind: str) -> str:
    """A call's tokens as the page says them: prompt + completion, or that the backend reported none
    (an in-process probabilities read, or an old record), never a made-up "0 + 0"."""
    p, q = c.prompt_tokens, c.completion_tokens
    if not p and not q:
        return "tokens not reported by the backend"
    if kind == "choice_probs":
        return f"{p or 0} prompt tokens (answer probabilities read, no text generated)"
    return f"{p or 0} + {q or 0} tokens"


def _call_view(c: CallRecord) -> dict[str, Any]:
    """A call as its box shows it; the raw JSON is the stored request and response exactly (key order
    included: `stored()` of a record `RunReader.calls_of` kept)."""
    req, resp = c.request, c.response
    given = req.model_extra or {}
    kind = req.kind or ("choice_probs" if resp.probs is not None and resp.texts is None else "generate")
    prefix = given.get("prefix")
    stored = c.stored()
    return {"tag": c.tag or "", "model": c.model or "", "role": c.role or "",
            "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
            "tokens": _tokens(c, kind), "kind": kind, "probs": resp.probs,
            "latency_s": c.latency_s, "attempts": c.attempts,
            "messages": _messages_view(req.messages or []), "prefix": redact_text(prefix) if isinstance(prefix, str) else None,
            "params": {k: given[k] for k in _PARAMS if given.get(k) is not None},
            "request": redact_text(json.dumps(stored["request"], indent=2, ensure_ascii=False)),
            "texts": [redact_text(t) for t in resp.texts or []],
            "response": redact_text(json.dumps(stored["response"], indent=2, ensure_ascii=False))}


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _turn_view(t: TurnRecord, calls: list[CallRecord], shared: bool) -> dict[str, Any]:
    content = t.content or ""
    shown = t.shown_text
    if shown is None and "shown" not in t.model_fields_set:
        shown = ""  # neither shown nor said: an empty turn (a stored null `shown` stays null)
    thinking = split_thinking(content)[0] if content and is_argument(t) else ""
    budget = t.budget
    marks = []
    if budget.forced:
        marks.append(f"forced: thinking budget spent after {budget.thinking_tokens} tokens, continued from \"Argument:\"")
    if budget.cut:
        marks.append(f"cut at {budget.argument_tokens} tokens")
    fmt = t.extra.format if t.extra is not None else None
    if fmt is not None and fmt.truncated_from_words:
        marks.append(f"cut to the word limit from {fmt.truncated_from_words} words")
    if shown == "[no argument was given in this turn]":
        marks.append("no argument")
    prefix = f"round{t.round}/{t.speaker}"
    model = (t.extra.model if t.extra is not None else None) or t.agent
    mine = [c for c in calls if c.role == "agent" and str(c.tag or "").split("/")[:2] == prefix.split("/")
            and (model is None or c.model == model) and (not shared or _mentions(c, [t]))]
    return {"round": t.round, "speaker": t.speaker or "", "role": t.role or "",
            "defends": t.defends, "shown": shown, "thinking": thinking.strip(), "marks": marks,
            "budget": budget, "notes": fmt.stored() if fmt is not None else {},  # every format note, as stored
            "quotes": _quotes(shown or ""),
            "calls": [_call_view(c) for c in mine]}


def _decision_view(d: DecisionRecord, judge_turns: list[TurnRecord], calls: list[CallRecord], shared: bool,
                   agent_turns: list[TurnRecord], run_label: str) -> dict[str, Any]:
    judge = d.judge or ""
    extra = d.extra
    mine = [c for c in calls if c.role == "judge" and c.model == judge
            and (not shared or not agent_turns or _mentions(c, agent_turns))]
    return {"judge": judge, "run": run_label, "raw": d.raw or "", "answer": d.answer,
            "correct": d.correct, "unjudged": bool(d.unjudged),
            "probs": d.probs, "debiased": bool(extra is not None and extra.debiased),
            "orders": (extra.orders if extra is not None else None) or [],
            "correct_index": d.correct_index, "answers": d.answers or [],
            "questions": [_question_view(t, mine) for t in judge_turns],
            "calls": [_call_view(c) for c in mine],
            "tokens": sum((c.prompt_tokens or 0) + (c.completion_tokens or 0) for c in mine),
            "from_probs": (extra is not None and extra.answer_from == "probs") or (not d.raw and d.probs is not None),
            "latency": sum(c.latency_s or 0 for c in mine)}


def _question_view(turn: TurnRecord, calls: list[CallRecord]) -> dict[str, Any]:
    """A judge turn as the page labels it: who asked (an imported room keeps its source's live judge,
    whose questions the debaters answer; `extra.human`, a field the record does not name) and whether
    this judge's prompt showed it (None: no call)."""
    human = (turn.extra.model_extra or {}).get("human") if turn.extra is not None else None
    return {"text": turn.shown_text, "source": bool(human),
            "in_prompt": any(_mentions(c, [turn]) for c in calls) if calls else None}


def _highlight(article: str, quotes: list[tuple[str, bool]]) -> Markup:
    """The passage escaped, with every span a turn quoted (a verified quote) marked. A quote is found
    with any run of whitespace standing for any other and straight quote marks for curly ones (the
    importers verify quotes so: a story's hard line breaks do not make a faithful quote unverified),
    and without a leading or trailing ellipsis. Both sides are normalised once and searched with
    str.find (linear time), so a long quote against an article of near misses stays fast."""
    flat, original = _normalised(article)
    spans = []
    for text, ok in quotes:
        words = text.strip().strip(".…").strip().split()
        needle = " ".join(words).translate(_STRAIGHT)
        if not ok or len(needle) < 4:
            continue
        at = flat.find(needle)
        while at >= 0:
            spans.append((original(at), original(at + len(needle) - 1) + 1))
            at = flat.find(needle, at + len(needle))
    out, pos = [], 0
    for s, e in sorted(spans):
        if e <= pos:
            continue
        s = max(s, pos)
        out += [html.escape(article[pos:s]), '<mark class="quoted" title="quoted by a turn (verified)">',
                html.escape(article[s:e]), "</mark>"]
        pos = e
    out.append(html.escape(article[pos:]))
    return Markup("".join(out))


_STRAIGHT = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})


def _normalised(text: str) -> tuple[str, Callable[[int], int]]:
    """`text` with each run of whitespace as one space and curly quote marks straight, and a map from
    an index in it back to the index in `text` (only runs of two or more characters shift it)."""
    at, shift, total = [], [], 0
    for m in re.finditer(r"\s{2,}", text):
        at.append(m.start() - total + 1)
        total += m.end() - m.start() - 1
        shift.append(total)

    def original(i: int) -> int:
        k = bisect.bisect_right(at, i)
        return i + (shift[k - 1] if k else 0)

    return re.sub(r"\s+", " ", text).translate(_STRAIGHT), original
