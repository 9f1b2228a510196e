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

from oversight_bench.api import is_argument, redact_text, split_thinking

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


def _call_text(call: dict[str, Any]) -> str:
    """The text of a call's messages and replies, for telling whose call it was."""
    req, resp = call.get("request") or {}, call.get("response") or {}
    parts = []
    for m in req.get("messages") or []:
        c = m.get("content") if isinstance(m, dict) else None
        parts += [c] if isinstance(c, str) else [x.get("text", "") for x in c or [] if isinstance(x, dict)]
    parts += [t for t in (resp.get("texts") or []) if isinstance(t, str)]
    return "\n".join(p for p in parts if isinstance(p, str))


def _mentions(call: dict[str, Any], turns: list[dict[str, Any]]) -> bool:
    """Whether a call's prompt or reply holds one of the room's turns: several rooms sharing a job's
    fields (imported rooms of one question) are told apart so."""
    text = _call_text(call)
    for t in turns:
        for s in (t.get("content"), t.get("shown")):
            if isinstance(s, str) and len(s.strip()) >= 20 and s.strip()[:200] in text:
                return True
    return False


def _messages_view(request: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's chat messages as turns: role, text (a multi-part content's text parts joined) and
    how many parts were not text (images)."""
    out = []
    for m in request.get("messages") or []:
        if not isinstance(m, dict):
            continue
        content, other = m.get("content"), 0
        if isinstance(content, list):
            parts = [x for x in content if isinstance(x, dict)]
            text = "\n".join(str(x["text"]) for x in parts if isinstance(x.get("text"), str))
            other = sum(1 for x in parts if not isinstance(x.get("text"), str))
        else:
            text = _text(content) or ""
        out.append({"role": str(m.get("role") or "?"), "text": redact_text(text), "images": other})
    return out


#: request fields shown beside the messages (the rest stay in the raw JSON)
_PARAMS = ("n", "max_tokens", "temperature", "seed", "stop")


def _tokens(c: dict[str, Any], kind: str) -> str:
    """A call's tokens as the page says them: prompt + completion, or that the backend reported none
    (an in-process probabilities read, or an old record), never a made-up "0 + 0"."""
    p, q = c.get("prompt_tokens"), c.get("completion_tokens")
    if not p and not q:
        return "tokens not reported by the backend"
    if kind == "choice_probs":
        return f"{p or 0} prompt tokens (answer probabilities read, no text generated)"
    return f"{p or 0} + {q or 0} tokens"


def _call_view(c: dict[str, Any]) -> dict[str, Any]:
    resp = c.get("response") or {}
    req = c.get("request") if isinstance(c.get("request"), dict) else {}
    kind = str(req.get("kind") or ("choice_probs" if "probs" in resp and "texts" not in resp else "generate"))
    probs = resp.get("probs") if isinstance(resp.get("probs"), list) else None
    prefix = req.get("prefix")
    return {"tag": c.get("tag") or "", "model": c.get("model") or "", "role": c.get("role") or "",
            "prompt_tokens": c.get("prompt_tokens"), "completion_tokens": c.get("completion_tokens"),
            "tokens": _tokens(c, kind), "kind": kind, "probs": probs,
            "latency_s": c.get("latency_s"), "attempts": c.get("attempts"),
            "messages": _messages_view(req), "prefix": redact_text(prefix) if isinstance(prefix, str) else None,
            "params": {k: req[k] for k in _PARAMS if req.get(k) is not None},
            "request": redact_text(json.dumps(c.get("request"), indent=2, ensure_ascii=False)),
            "texts": [redact_text(t) for t in resp.get("texts") or [] if isinstance(t, str)],
            "response": redact_text(json.dumps(resp, indent=2, ensure_ascii=False))}


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _turn_view(t: dict[str, Any], calls: list[dict[str, Any]], shared: bool) -> dict[str, Any]:
    content = _text(t.get("content")) or ""
    shown = _text(t["shown"]) if "shown" in t else content  # a foreign store's non-text shown as its text
    thinking = split_thinking(content)[0] if content and is_argument(t) else ""
    budget = (t.get("extra") or {}).get("budget") or {}
    marks = []
    if budget.get("forced"):
        marks.append(f"forced: thinking budget spent after {budget.get('thinking_tokens')} tokens, continued from \"Argument:\"")
    if budget.get("cut"):
        marks.append(f"cut at {budget.get('argument_tokens')} tokens")
    notes = (t.get("extra") or {}).get("format") or {}
    if isinstance(notes, dict) and notes.get("truncated_from_words"):
        marks.append(f"cut to the word limit from {notes['truncated_from_words']} words")
    if shown == "[no argument was given in this turn]":
        marks.append("no argument")
    prefix = f"round{t.get('round')}/{t.get('speaker')}"
    model = (t.get("extra") or {}).get("model") or t.get("agent")
    mine = [c for c in calls if c.get("role") == "agent" and str(c.get("tag") or "").split("/")[:2] == prefix.split("/")
            and (model is None or c.get("model") == model) and (not shared or _mentions(c, [t]))]
    return {"round": t.get("round"), "speaker": t.get("speaker") or "", "role": t.get("role") or "",
            "defends": t.get("defends"), "shown": shown, "thinking": thinking.strip(), "marks": marks,
            "budget": budget, "notes": (t.get("extra") or {}).get("format") or {},
            "quotes": _quotes(shown or ""),
            "calls": [_call_view(c) for c in mine]}


def _decision_view(d: dict[str, Any], judge_turns: list[dict], calls: list[dict], shared: bool,
                   agent_turns: list[dict], run_label: str) -> dict[str, Any]:
    judge = d.get("judge") or ""
    extra = d.get("extra") or {}
    mine = [c for c in calls if c.get("role") == "judge" and c.get("model") == judge
            and (not shared or not agent_turns or _mentions(c, agent_turns))]
    probs = d.get("probs")
    return {"judge": judge, "run": run_label, "raw": d.get("raw") or "", "answer": d.get("answer"),
            "correct": d.get("correct"), "unjudged": bool(d.get("unjudged")),
            "probs": probs if isinstance(probs, list) else None, "debiased": bool(extra.get("debiased")),
            "orders": extra.get("orders") if isinstance(extra.get("orders"), list) else [],
            "correct_index": d.get("correct_index"), "answers": d.get("answers") or [],
            "questions": [_question_view(t, mine) for t in judge_turns],
            "calls": [_call_view(c) for c in mine],
            "tokens": sum((c.get("prompt_tokens") or 0) + (c.get("completion_tokens") or 0) for c in mine),
            "from_probs": extra.get("answer_from") == "probs" or (not d.get("raw") and isinstance(probs, list)),
            "latency": sum(c.get("latency_s") or 0 for c in mine)}


def _question_view(turn: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A judge turn as the page labels it: who asked (an imported room keeps its source's live judge,
    whose questions the debaters answer) and whether this judge's prompt showed it (None: no call)."""
    extra = turn.get("extra") if isinstance(turn.get("extra"), dict) else {}
    text = turn.get("shown", turn.get("content"))
    return {"text": text, "source": bool(extra.get("human")),
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
