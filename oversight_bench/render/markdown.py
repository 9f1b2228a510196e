"""Markdown for text that came from runs: escaping (`md_text`, `md_code`) and tables (`md_table`),
every figure in them formatted by the one rounding rule (`render.numbers.decimal_round`). Shared by
report.md and leaderboard.md, so both escape and round alike."""

from __future__ import annotations

import math
import re
from typing import Any

from oversight_bench.render import numbers


def _fmt(v: Any, pct: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, list):
        return "; ".join(map(str, v))
    if isinstance(v, float):
        if pct:
            return numbers.pct(v)  # the one rounding rule (numbers.decimal_round)
        return numbers.sig(v) if abs(v) < 1000 else numbers.decimal_round(v, 0)
    return str(v)


#: Markdown punctuation that is active mid-line: links and images need `[` `]`, code spans a backtick,
#: emphasis `*` `_` (an underscore inside a word is not: `qa_without_article` stays as it is), GFM
#: strikethrough `~`, tables `|`; and the backslash itself, so none of these escapes can be undone
_MD_ACTIVE = re.compile(r"[\\`*\[\]~|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md_text(value: Any) -> str:
    """Text from a run (a model name, a task, a deviation, a flag, a carried board's value) for
    Markdown, shown as the text it is wherever the Markdown is rendered: `<` as an entity, so no tag,
    comment or autolink can start; Markdown's active punctuation backslash-escaped (`_MD_ACTIVE`), so
    no link, image, code span or emphasis can start; line breaks folded, so it stays in its table cell
    or list item; a leading `#`, `>`, `+`, `-` or `=` escaped so it starts no heading, quote or list."""
    text = _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), " ".join(str(value).split())).replace("<", "&lt;")
    return "\\" + text if text[:1] in ("#", ">", "+", "-", "=") else text


def md_code(value: Any) -> str:
    """Text as a Markdown code span, fenced by more backticks than it holds in a row."""
    text = " ".join(str(value).split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    pad = " " if longest else ""
    return f"{'`' * (longest + 1)}{pad}{text}{pad}{'`' * (longest + 1)}"


def md_table(rows: list[dict[str, Any]], cols: list[tuple[str, str, bool]]) -> str:
    """Markdown table; cols are (key, header, as_percent)."""
    lines = ["| " + " | ".join(h for _, h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(md_text(_fmt(r.get(k), p)) for k, _, p in cols) + " |")
    return "\n".join(lines)


def rounded(v: float | None) -> str:
    """A rating or word count: whole, by the one rounding rule."""
    return "–" if v is None else numbers.decimal_round(v, 0)
