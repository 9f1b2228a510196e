"""What each stored field may hold, checked once where a store is read (issue 37.5).

A store's rows may hold anything (an edit, another tool, a damaged page that still parses), and every
reader (report, view, export, resume, re-judging) used to trust the types the writer gave them: a
probability 'yes', a turn's speaker that is a dict, a token count that is text each ended in a
traceback far from the store. Here each record kind (turn, decision, call, question, config) names
the fields readers use and what they must be; `check` walks a row against its kind's fields and the
first misfit is one line naming the row, the field, what it holds and what was expected (the
caller wraps it as the store's damaged-store error, which points to `salvage`, and salvage leaves
such rows out). Fields not named here are free (plugins store their own in `extra`).

The fields are not written here: they are those of the typed records (`rundir.records`, one model
per kind), each field's type looked up in `_CHECKS` (a type no check covers stops the import), so a
field added to a model is checked where a store is read, with the words its type has here. Checking
a plain dict this way is cheap (a few microseconds a record), and its first misfit is one line, not
a pydantic error list.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any, Callable

from oversight_bench.rundir import records

#: a field's check and the words saying what it expects
Field = tuple[Callable[[Any], bool], str]


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _whole(v: Any) -> bool:
    return type(v) is int and -2**63 <= v < 2**63  # what SQLite and orjson hold


def _count(v: Any) -> bool:
    return type(v) is int and 0 <= v < 2**63


def _number(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


def _flag(v: Any) -> bool:
    return type(v) is bool or (type(v) is int and v in (0, 1))


def _side(v: Any) -> bool:
    return type(v) is int and v in (1, 2)


def _prob(v: Any) -> bool:
    return _number(v) and 0 <= v <= 1


def _dict(v: Any) -> bool:
    return isinstance(v, dict)


def _list(v: Any) -> bool:
    return isinstance(v, list)


TEXT: Field = (_text, "text")
WHOLE: Field = (_whole, "a whole number (64-bit)")
COUNT: Field = (_count, "a whole number >= 0 (64-bit)")
NUMBER: Field = (_number, "a finite number")
FLAG: Field = (_flag, "true or false")
SIDE: Field = (_side, "answer 1 or 2")
OBJECT: Field = (_dict, "an object")
LIST: Field = (_list, "a list")
PROBS: Field = (lambda v: _list(v) and len(v) == 2 and all(map(_prob, v)), "two probabilities from 0 to 1")
TEXTS: Field = (lambda v: _list(v) and all(map(_text, v)), "a list of texts")
DEBATERS: Field = (lambda v: isinstance(v, (list, dict)), "a list or an object of debater names")
MESSAGES: Field = (lambda v: _list(v) and all(map(_dict, v)), "a list of messages (objects)")
PROBABILITIES: Field = (lambda v: _list(v) and all(map(_prob, v)), "probabilities from 0 to 1")
IMAGES: Field = (lambda v: _list(v) and all(_dict(i) and _text(i.get("data")) and _text(i.get("mime")) for i in v),
                 "a list of images (objects with text data and mime)")


def optional(field: Field) -> Field:
    check, expected = field
    return (lambda v: v is None or check(v)), f"{expected} or null"


#: each type the records' fields have (`rundir.records`) -> its check here
_CHECKS: list[tuple[Any, Field]] = [
    (records.Text, TEXT), (records.Whole, WHOLE), (records.Count, COUNT), (records.Number, NUMBER),
    (records.Flag, FLAG), (records.Side, SIDE), (records.Probs, PROBS), (list[records.Text], TEXTS),
    (records.Debaters, DEBATERS), (dict[str, Any], OBJECT), (list[Any], LIST), (list[dict[str, Any]], MESSAGES),
    (list[records.Probability], PROBABILITIES), (list[records.Image], IMAGES),
]


def _check_of(hint: Any, where: str) -> Field | dict[str, Any]:
    """The check of a field typed `hint`: a `_CHECKS` entry (`optional` where the type allows null),
    or a nested object's own fields (a nested record, `records._Open`)."""
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else ()
    nullable = type(None) in args
    if nullable:
        rest = tuple(a for a in args if a is not type(None))
        hint = rest[0] if len(rest) == 1 else typing.Union[rest]
    if isinstance(hint, type) and issubclass(hint, records._Open):
        return fields_of(hint)
    for known, field in _CHECKS:
        if hint is known or hint == known:
            return optional(field) if nullable else field
    raise TypeError(f"{where}: no check for its type {hint!r}; add one to rundir.schema._CHECKS")


def fields_of(model: type) -> dict[str, Any]:
    """A record model's fields (`rundir.records`), in its order, each with its check (a nested
    object's: a dict of its own fields)."""
    hints = typing.get_type_hints(model, include_extras=True)
    return {name: _check_of(hints[name], f"{model.__name__}.{name}") for name in model.model_fields}


#: record kind -> its fields and their checks, from its model (`records.MODELS`)
KINDS: dict[str, dict[str, Any]] = {kind: fields_of(model) for kind, model in records.MODELS.items()}
TURN, DECISION, CALL, QUESTION, CONFIG = (KINDS[k] for k in ("turn", "decision", "call", "question", "config"))
#: fields a record of the kind cannot be read without (a turn without a speaker is no turn): its
#: model's required fields, less the job's (a turn's or decision's row has those as columns)
REQUIRED = {kind: tuple(name for name, info in model.model_fields.items() if info.is_required()
                        and not (issubclass(model, records.JobFields) and name in records.JobFields.model_fields))
            for kind, model in records.MODELS.items()}


def _shown(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return f"a {'JSON object' if isinstance(v, dict) else 'list'}"
    return f"{type(v).__name__} {repr(v)[:40]}"


def misfit(row: Any, fields: dict[str, Any], where: str = "", required: tuple[str, ...] = ()) -> str | None:
    """The first field of `row` that does not hold what `fields` expects, as words ("field
    extra.budget.forced holds str 'yes'; expected true or false or null"); None when all fit.
    A nested dict of fields means: an object (or absent/null) whose own fields are checked."""
    if not isinstance(row, dict):
        return f"{where or 'it'} holds {_shown(row)}; expected an object"
    for name in required:
        if name not in row:
            return f"it has no field {name}; expected {fields[name][1]}"
    for name, spec in fields.items():
        if name not in row:
            continue
        value = row[name]
        path = f"{where}.{name}" if where else name
        if isinstance(spec, dict):
            if value is None:
                continue
            inner = misfit(value, spec, path)
            if inner:
                return inner
        elif not spec[0](value):
            return f"field {path} holds {_shown(value)}; expected {spec[1]}"
    return None


def check(kind: str, row: Any) -> str | None:
    """`misfit` for a record of `kind` (turn, decision, call or question)."""
    return misfit(row, KINDS[kind], required=REQUIRED[kind])


#: the SQLite types each column of a store's tables may hold ("null" where it may be empty), checked
#: in one scan when a store is opened (`columns_misfit_sql`), before any aggregate (a SUM over text)
#: or row reaches a reader; `count` is an integer >= 0, `name` non-empty text. The columns are the
#: store's SQL's (`format.SCHEMA`), each typed as its record model types it (tests/test_evidence_model.py
#: checks both, column by column)
COLUMNS = {
    "records": {"kind": ("turn", "decision"), "job_key": ("text",), "seq": ("integer",), "judge": ("name",),
                "agent": ("text", "null"), "protocol": ("name",), "task": ("name",), "question_id": ("name",),
                "assignment": ("text", "null"), "answer_order": ("text", "null"), "round": ("integer", "null"),
                "data": ("text",), "created": ("real", "integer", "null")},
    "calls": {"key": ("text",), "model": ("text",), "role": ("text", "null"), "tag": ("text", "null"),
              "protocol": ("text", "null"), "task": ("text", "null"), "question_id": ("text", "null"),
              "assignment": ("text", "null"), "answer_order": ("text", "null"), "request": ("text",), "response": ("text",),
              "prompt_tokens": ("count", "null"), "completion_tokens": ("count", "null"),
              "latency_s": ("real", "integer", "null"), "attempts": ("count", "null"), "created": ("real", "integer", "null")},
    "questions": {"task": ("text",), "question_id": ("text",), "data": ("text",)},
}


def _column_ok_sql(column: str, allowed: tuple[str, ...]) -> str:
    if allowed == ("turn", "decision"):
        return f"{column} IN ('turn', 'decision')"
    terms = []
    for t in allowed:
        if t == "name":
            terms.append(f"(typeof({column}) = 'text' AND length({column}) > 0)")
        elif t == "count":
            terms.append(f"(typeof({column}) = 'integer' AND {column} >= 0)")
        elif t == "real":
            terms.append(f"(typeof({column}) = 'real' AND {column} = {column} AND abs({column}) < 1e308)")
        else:
            terms.append(f"typeof({column}) = '{t}'")
    return "(" + " OR ".join(terms) + ")"


def columns_misfit_sql(table: str) -> str:
    """A query for the first row of `table` whose columns hold what `COLUMNS` does not allow."""
    cols = COLUMNS[table]
    ok = " AND ".join(_column_ok_sql(c, allowed) for c, allowed in cols.items())
    return f"SELECT rowid, {', '.join(cols)} FROM {table} WHERE NOT ({ok}) LIMIT 1"


def column_misfit(table: str, row: Any) -> str:
    """Words for the misfit `columns_misfit_sql` found in `row` (rowid, then the columns)."""
    for (column, allowed), value in zip(COLUMNS[table].items(), row[1:]):
        if not eval_column(value, allowed):
            shown = "null" if value is None else f"{type(value).__name__} {repr(value)[:40]}"
            return f"row {row[0]} of {table}: column {column} holds {shown}; expected {' or '.join(allowed)}"
    return f"row {row[0]} of {table} holds what no column may"


def eval_column(value: Any, allowed: tuple[str, ...]) -> bool:
    if allowed == ("turn", "decision"):
        return value in allowed
    for t in allowed:
        if (t == "null" and value is None) or (t == "text" and isinstance(value, str)) \
                or (t == "name" and isinstance(value, str) and value) or (t == "integer" and type(value) is int) \
                or (t == "count" and type(value) is int and value >= 0) or (t == "real" and type(value) is float and math.isfinite(value)):
            return True
    return False
