"""A loader's row as a binary question: the correct answer and every acceptable incorrect one
(`Candidate`), or the reason the row cannot become one (counted as skipped by that reason).

The task file's `fields` say which row keys (or `{key}` templates) hold each part, its `binary`
how the two options are made; see `task_schema`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from oversight_bench.questions import Image
from oversight_bench.task_schema import Binary, Fields, TaskConfig


_TEMPLATE = re.compile(r"\{([^{}]+)\}")


def _get(row: dict, spec: str | None) -> Any:
    if spec is None:
        return None
    if "{" in spec:
        return _TEMPLATE.sub(lambda m: str(row.get(m.group(1), "")), spec)
    return row.get(spec)


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _as_list(value: Any, separator: str | None) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str) and value.strip().startswith("[") and separator is None:
        import ast

        try:
            parsed = ast.literal_eval(value)
            if isinstance(parsed, (list, tuple)):
                return list(parsed)
        except (ValueError, SyntaxError):
            pass
    if isinstance(value, str) and separator:
        return value.split(separator)
    return [value]


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    low = str(value).strip().lower()
    return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(low)


@dataclass
class Candidate:
    """A convertible row: the correct answer and every acceptable incorrect one."""

    id: str
    question: str
    correct: str
    incorrects: list[str]
    article: str | None = None
    images: tuple[Image, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    #: wrong choices left out of the draw because they refer to other choices (`binary.drop_references`)
    dropped_refs: int = 0


#: the skip reason of a question whose correct choice refers to other choices (`binary.drop_references`)
REFERS = "answer_refers_to_other_options"


def _options(row: dict, f: Fields, b: Binary) -> tuple[str | None, list, str | None]:
    """(correct, incorrect candidates, skip reason)."""
    if b.mode == "yes_no":
        value = _bool(_get(row, f.answer))
        if value is None:
            return None, [], "missing_answer"
        yes, no = b.labels
        return (yes, [no], None) if value else (no, [yes], None)
    if b.mode == "choices":
        spec = f.choices
        choices = [row.get(k) for k in spec] if isinstance(spec, list) else _as_list(_get(row, spec), b.separator)
        choices = [_text(c) for c in choices]
        raw = _get(row, f.answer)
        if raw is None or str(raw).strip() == "":
            return None, [], "missing_answer"
        idx = None
        text = str(raw).strip()
        if b.answer_format == "index" and text.lstrip("-").isdigit():
            idx = int(text)
        elif b.answer_format == "letter" and len(text) == 1 and text.isalpha():
            idx = ord(text.upper()) - ord("A")
        elif b.answer_format == "text":
            idx = next((i for i, c in enumerate(choices) if c is not None and _norm(c) == _norm(text)), None)
        if idx is None or not 0 <= idx < len(choices) or choices[idx] is None:
            return None, [], "bad_answer_key"
        return choices[idx], [c for i, c in enumerate(choices) if i != idx], None
    correct = _text(_get(row, f.correct))
    spec = f.incorrect
    if isinstance(spec, list):
        incorrects = [row.get(k) for k in spec]
    else:
        incorrects = _as_list(_get(row, spec), b.separator)
    return correct, incorrects, None


def convert(row: dict, cfg: TaskConfig, fields: Fields) -> Candidate | str:
    """A Candidate, or the reason the row cannot become a binary question."""
    question = _text(_get(row, fields.question))
    if question is None:
        return "missing_question"
    correct, incorrects, reason = _options(row, fields, cfg.binary)
    if reason:
        return reason
    if correct is None:
        return "missing_correct_answer"
    dropped = 0
    if cfg.binary.drop_references:
        from oversight_bench.option_refs import refers_to_other_options

        if refers_to_other_options(correct):
            return REFERS
        kept = [i for i in incorrects if not refers_to_other_options(_text(i))]
        dropped, incorrects = len(incorrects) - len(kept), kept
        if not incorrects:
            return "wrong_choices_refer_to_other_options"
    seen, keep = {_norm(correct)}, []
    for inc in incorrects:
        t = _text(inc)
        if t is not None and _norm(t) not in seen:
            seen.add(_norm(t))
            keep.append(t)
    if not keep:
        return "identical_options" if any(_text(i) for i in incorrects) else "missing_incorrect_answer"
    article = None
    if fields.article is not None:
        article = _text(_get(row, fields.article))
        if article is None:
            return "missing_article"
    images: tuple[Image, ...] = ()
    if fields.images is not None:
        images = tuple(row.get(fields.images) or ())
        if not images:
            return "missing_image"
    digest = hashlib.sha1("\x1f".join([question, correct, article or ""]).encode()).hexdigest()[:12]
    ident = (_text(_get({**row, "_hash": digest}, fields.id)) if fields.id else None) or digest
    meta = {k: row[k] for k in fields.meta if k in row and row[k] is not None}
    meta.update(row.get("_meta") or {})
    return Candidate(str(ident), question, correct, keep, article, images, meta, dropped_refs=dropped)
