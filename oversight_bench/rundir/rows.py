"""A store's rows as they are read and written, checked: every JSON column read strictly (no NaN, an
object where one is due), a record's naming columns, each record, call, question and config.json
against its kind (`schema`), every column's type in one scan, a transcript's speakers against its
protocol's. A misfit is one line naming the store and the row (`damaged_error`), never a traceback in
whichever reader met it. Kept apart from the storage itself (`store`: connections, the writer, the
cache), which calls these where it reads and writes."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError
from oversight_bench.questions import Image, Question
from oversight_bench.rundir import schema
from oversight_bench.rundir.names import CONFIG_NAME, DB_NAME
from oversight_bench.yamlio import strict_json


def damaged_error(directory: Path, detail: str) -> BenchError:
    return BenchError(f"{directory / DB_NAME} is damaged ({detail}); expected an SQLite store written by oversight-bench. "
                      f"Copy every readable record into a new run with 'oversight-bench salvage {directory} --output NEW'")


def load_json(directory: Path, text: Any, where: str) -> Any:
    """A JSON column of a store, read strictly: a store's bytes may be anything (a disk error, an
    edit, another tool), and a NaN read into a record would reach the figures. Any failure is one
    line naming the store and the row (`where`)."""
    try:
        return strict_json(text)
    except ValueError as exc:
        raise damaged_error(directory, f"{where} is not valid JSON: {str(exc)[:160]}") from None


def read_config_file(directory: Path) -> dict[str, Any] | None:
    """A run's config.json as written (None: there is none), read as every reader reads it: a
    regular file of at most `yamlio.MAX_INPUT_BYTES`, UTF-8, strict JSON (no NaN), an object.
    Anything else (a folder, a FIFO, a device, bytes that are no JSON object) is one line naming it."""
    from oversight_bench.yamlio import read_input_bytes

    p = Path(directory) / CONFIG_NAME
    if not (p.exists() or p.is_symlink()):
        return None
    salvage = f"Copy every readable record into a new run with 'oversight-bench salvage {directory} --output NEW'"
    try:
        raw = read_input_bytes(p, "run config")
    except BenchError as exc:
        raise BenchError(f"{p} is damaged ({exc}); expected the config.json oversight-bench wrote. {salvage}") from None
    try:
        data = strict_json(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BenchError(f"{p} is damaged ({str(exc)[:160]}); expected the JSON oversight-bench wrote. {salvage}") from None
    if not isinstance(data, dict):
        raise BenchError(f"{p} is damaged (a JSON {type(data).__name__}, not an object); expected the JSON oversight-bench "
                         f"wrote. {salvage}")
    problem = schema.check("config", data)
    if problem:
        raise BenchError(f"{p} is damaged ({problem}); expected the JSON oversight-bench wrote. {salvage}")
    return data


#: a record's columns that name its job: each must be non-empty text (grouping, labels and re-judging use them)
RECORD_NAME_FIELDS = ("judge", "protocol", "task", "question_id")


def check_record_fields(directory: Path, fields: dict[str, Any] | sqlite3.Row, where: str) -> None:
    """A stored record's naming columns (`RECORD_NAME_FIELDS`) are non-empty text; anything else
    (NULL, a number, a blob, '') is a damaged store: one line naming the store and the row (`where`)."""
    for name in RECORD_NAME_FIELDS:
        value = fields[name]
        if not isinstance(value, str) or not value:
            shown = "NULL" if value is None else "empty" if value == "" else f"a {type(value).__name__} ({str(value)[:40]!r})"
            raise damaged_error(directory, f"{where} has {name} {shown}, not its name as text")


def load_record(directory: Path, row: sqlite3.Row) -> dict[str, Any]:
    """A turn's or decision's stored fields (its `data`: a JSON object), read strictly (`load_json`)."""
    data = load_json(directory, row["data"], f"record {row['id']}")
    if not isinstance(data, dict):
        raise damaged_error(directory, f"record {row['id']} holds a JSON {type(data).__name__}, not an object")
    return data


#: a record's columns, as its flat dict carries them
RECORD_COLUMNS = ("kind", "job_key", "judge", "agent", "protocol", "task", "question_id", "assignment", "answer_order", "round")


def read_record(directory: Path, row: sqlite3.Row, *, seq: bool = False) -> dict[str, Any]:
    """A turn's or decision's row as one flat dict: its columns, its JSON fields over them, and `seq`
    (a turn's always, a decision's when asked). The one place a record is read: its naming columns
    and every field readers use are checked against its kind (`schema`), so a misfit is one line
    naming the store, the record and the field here, not a traceback in whichever reader met it."""
    where = f"record {row['id']}"
    check_record_fields(directory, row, where)
    d = {k: row[k] for k in RECORD_COLUMNS}
    d.update(load_record(directory, row))
    if seq or row["kind"] == "turn":
        d["seq"] = row["seq"]
    kind = row["kind"]
    problem = schema.check(kind, d) if kind in ("turn", "decision") else f"kind {str(kind)[:20]!r} is neither turn nor decision"
    if problem:
        raise damaged_error(directory, f"{where} ({kind}): {problem}")
    return d


def check_response(directory: Path, response: Any, key: str) -> dict[str, Any]:
    """A stored call's response as a cache hit hands it on: checked against `schema.CALL`'s."""
    problem = schema.misfit(response, schema.CALL["response"], "response")
    if problem:
        raise damaged_error(directory, f"call {key[:16]}: {problem}")
    return response


def load_call(directory: Path, row: sqlite3.Row) -> dict[str, Any]:
    """A stored call as a dict, its request and response read strictly (`load_json`) and its fields
    checked (`schema.CALL`)."""
    d = dict(row)
    for col in ("request", "response"):
        d[col] = load_json(directory, d[col], f"the {col} of call {str(d['key'])[:80]}")
    problem = schema.check("call", d)
    if problem:
        raise damaged_error(directory, f"call {str(d['key'])[:16]}: {problem}")
    return d


def load_question(directory: Path, text: Any, task: str, question_id: str) -> Question:
    """A stored question, read strictly: JSON that is no question is a damaged store too."""
    where = f"question {task}/{question_id}"
    data = load_json(directory, text, where)
    problem = schema.check("question", data)
    if problem:
        raise damaged_error(directory, f"{where}: {problem}")
    try:
        return question_from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise damaged_error(directory, f"{where} is not a stored question ({type(exc).__name__}: {exc})") from None


def check_columns(directory: Path, conn: sqlite3.Connection) -> None:
    """Every column of the records, calls and questions tables holds what its field may
    (`schema.COLUMNS`; one scan each, in C): a token count that is text or a model name that is a
    blob is one line naming the row, before any sum or page meets it."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in schema.COLUMNS:
        if table in tables:
            row = conn.execute(schema.columns_misfit_sql(table)).fetchone()
            if row is not None:
                raise damaged_error(directory, schema.column_misfit(table, tuple(row)))


def check_speakers(job_key: str, protocol: Any, turns: list[dict]) -> None:
    """A transcript's speakers are its protocol's (`Protocol.speakers`): the judge prompt names those,
    so a turn under any other name would be read by a judge told of someone else."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    if not isinstance(protocol, str) or protocol not in reg.names("protocols"):
        return
    allowed = tuple(getattr(reg.get("protocols", protocol), "speakers", ()) or ())
    speakers = [t.get("speaker") for t in turns if isinstance(t, dict) and t.get("speaker") is not None]
    odd = next((s for s in speakers if not isinstance(s, str)), None)
    if odd is not None:  # an imported transcript may name a debater [1] or {"a": 1}
        raise BenchError(f"job {job_key}: a turn's speaker is {type(odd).__name__} {str(odd)[:60]}; expected a name (text)")
    bad = sorted(s for s in set(speakers) if s not in allowed) if allowed else []
    if bad:
        raise BenchError(f"job {job_key}: its turns name {', '.join(map(repr, bad))}, a speaker protocol {protocol} does not "
                         f"have; expected {', '.join(allowed)}")


def check_job(job_key: str, fields: dict[str, Any], turns: list[dict], decision: dict) -> None:
    """A job's records as `read_record` will check them, before any is written: its speakers its
    protocol's, its naming fields text, every field of the kind's schema; so no writer (an import of
    someone else's transcripts above all) stores a record its own reader would call damaged."""
    check_speakers(job_key, fields.get("protocol"), turns)
    for name in RECORD_NAME_FIELDS:
        if not isinstance(fields.get(name), str) or not fields.get(name):
            raise BenchError(f"job {job_key}: its {name} is {str(fields.get(name))[:40]!r}; expected a name (text)")
    base = {k: fields.get(k) for k in RECORD_COLUMNS if k in fields}
    for kind, rec in [*(("turn", t) for t in turns), ("decision", decision)]:
        problem = schema.check(kind, base | rec) if isinstance(rec, dict) else f"it is a {type(rec).__name__}, not an object"
        if problem:
            raise BenchError(f"job {job_key}: its {kind} record cannot be stored: {problem}")


def question_to_dict(q: Question) -> dict[str, Any]:
    return {
        "id": q.id, "task": q.task, "task_type": q.task_type, "question": q.question,
        "correct": q.correct, "incorrect": q.incorrect, "article": q.article,
        "images": [{"mime": i.mime, "data": base64.b64encode(i.data).decode()} for i in q.images],
        "meta": dict(q.meta),
    }


def question_from_dict(d: dict[str, Any]) -> Question:
    images = tuple(Image(base64.b64decode(i["data"], validate=True), i["mime"]) for i in d.get("images") or [])
    return Question(id=d["id"], task=d["task"], task_type=d["task_type"], question=d["question"],
                    correct=d["correct"], incorrect=d["incorrect"], article=d.get("article"),
                    images=images, meta=d.get("meta") or {})
