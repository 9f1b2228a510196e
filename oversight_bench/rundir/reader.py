"""The one reader of a run directory (`RunReader`): every command that reads a run (report,
leaderboard, elo, view and its export, export, preferences, suites, `judge --from`, inspect export)
opens it here; nothing outside `rundir` opens results.sqlite (tests/test_evidence_model.py).

It opens the database strictly read-only and WAL-safe (`connect.connect_readonly`: nothing is ever
written into the run, so it reads a read-only copy and a run in progress). What it hands out:

* the records whole, each checked against its kind (`schema`) where it is read, as the typed,
  versioned records of `rundir.records` (`records`, `decisions`, `turns`, `calls`, `identity`,
  `question_records`), whose JSON Schema docs/records-schema.json publishes; a record read with
  `keep=True` gives back the dict it was stored as (`stored()`: what `export` writes);
* indexes for browsing that read only the few JSON fields a list needs (SQLite's json_extract, in
  C), so 100,000 records index in about a second rather than parsing every turn's text in Python.

Stores of earlier formats are read through `rundir.legacy` (the one place that knows them).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

from oversight_bench.errors import BenchError
from oversight_bench.model_text import ARGUING_ROLES, NO_ARGUMENT
from oversight_bench.questions import Question
from oversight_bench.redact import redact_obj
from oversight_bench.rundir import legacy
from oversight_bench.rundir.legacy import READABLE_AS_IS
from oversight_bench.rundir import schema
from oversight_bench.rundir import records
from oversight_bench.rundir.names import DB_NAME
from oversight_bench.rundir.rows import (check_columns, check_record_fields, damaged_error, load_call, load_json, load_question,
                                         read_record)
from oversight_bench.rundir.connect import connect_readonly
from oversight_bench.rundir.format import SCHEMA_VERSION, store_format
from oversight_bench.rundir.record_reads import RecordReads
from oversight_bench.rundir.store import Store
from oversight_bench.rundir.store_errors import store_errors

#: what each column of a summary (`RunReader.summaries`) may hold, as SQLite hands it over (JSON's
#: true and false as 1 and 0): the same fields `schema.DECISION` checks where a record is read whole
_SUMMARY_NAMES = ("job_key", "judge", "agent", "protocol", "task", "question_id", "assignment", "answer_order", "answer",
                  "correct", "probs[0]", "probs[1]", "extra.debiased", "unjudged")
_SUMMARY = (schema.TEXT, schema.TEXT, schema.optional(schema.TEXT), schema.TEXT, schema.TEXT, schema.TEXT,
            schema.optional(schema.TEXT), schema.optional(schema.TEXT), schema.optional(schema.SIDE),
            schema.optional(schema.FLAG), *[schema.optional((schema._prob, "a probability from 0 to 1"))] * 2,
            schema.optional(schema.FLAG), schema.optional(schema.FLAG))


def is_run_dir(directory: str | Path) -> bool:
    """Whether `directory` holds a run's store (what `RunReader` opens)."""
    return (Path(directory) / DB_NAME).is_file()


def store_files(directory: str | Path) -> tuple[Path, Path]:
    """A run's store and its write-ahead log: the files whose size and time change when a writer
    commits (what a live view watches)."""
    d = Path(directory)
    return d / DB_NAME, d / (DB_NAME + "-wal")


class RunReader(RecordReads):
    """One run directory's store and config, read-only. `identity`, `questions` and the typed
    `records`, `decisions`, `turns`, `calls` read it whole; `summaries()` and `turn_flags()` index it;
    `job_records`, `calls_of`, `judge_calls` (typed records), `request` and `question` read one room
    on demand.

    `check_pages=True` (what the whole-run readers ask for: report, export, re-judging) first runs
    `PRAGMA quick_check`, so a damaged store is refused before it is half-read; browsing skips it
    (a large run's view opens at once)."""

    def __init__(self, directory: str | Path, *, check_pages: bool = False):
        self.dir = Path(directory)
        self._store: Store | None = None
        if check_pages:
            self._store = Store.open(self.dir)  # read-only: connect_readonly, integrity, format, columns
            self.conn = self._store.conn
            try:  # the store's format (`legacy`: the older ones readable); 0, an empty store, reads as the current
                self.format = store_format(self.conn, self.dir) or SCHEMA_VERSION
            except BaseException:
                self._store.close()
                raise
            return
        db = self.dir / DB_NAME
        if not db.is_file():
            raise BenchError(f"{self.dir} is not a run directory: expected {db} (written by 'oversight-bench run')")
        self.conn = connect_readonly(self.dir)
        self.conn.row_factory = sqlite3.Row
        try:
            version = store_format(self.conn, self.dir)
            with store_errors(self.dir):
                check_columns(self.dir, self.conn)
        except BaseException:
            self.conn.close()
            raise
        if version not in (SCHEMA_VERSION, *READABLE_AS_IS):
            self.conn.close()
            raise BenchError(f"{self.dir} holds a run in store format {version}, which cannot be read as it is; "
                             f"resume it once with 'oversight-bench run' to upgrade it")
        self.format = version

    @property
    def records_version(self) -> int:
        """The version of the typed records this store's rows hold (`legacy.RECORDS_OF_FORMAT`)."""
        return legacy.RECORDS_OF_FORMAT[self.format]

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        else:
            self.conn.close()

    def __enter__(self) -> "RunReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _config(self) -> dict[str, Any]:
        """The run's config.json, secrets redacted (`read_config`; {} where there is none)."""
        return self.read_config() or {}

    # -- whole records (and read_config, questions, records, decisions, turns, calls, count: record_reads.RecordReads) --
    def agent_usage(self) -> dict[tuple[str, str], dict[str, tuple[int, int]]]:
        """(protocol, task) -> model -> (prompt, completion tokens) of the agents' calls (shared by a cell's judges)."""
        out: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
        for proto, task, model, p, c in self._select(
                "SELECT protocol, task, model, COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0) "
                "FROM calls WHERE role='agent' GROUP BY protocol, task, model"):
            out.setdefault((proto, task), {})[model] = (p, c)
        return out

    def judge_calls(self, d: records.Decision) -> list[records.Call]:
        """The judge calls of one decision's job (its judge model and job fields), typed, oldest first."""
        sql = ("SELECT * FROM calls WHERE role='judge' AND model IS ? AND protocol IS ? AND task IS ? AND question_id IS ? "
               "AND assignment IS ? AND answer_order IS ? ORDER BY created, key")
        args = (d.judge, d.protocol, d.task, d.question_id, d.assignment or None, d.answer_order or None)
        return [records.Call.from_stored(load_call(self.dir, r)) for r in self._select(sql, args)]

    def identity(self) -> records.RunIdentity:
        """The run's identity and settings (its config.json, secrets redacted; empty where there is
        none), typed; `stored()` gives the config back exactly as stored."""
        return records.RunIdentity.from_stored(self._config(), keep=True)

    def question_records(self) -> Iterator[records.QuestionRecord]:
        for q in self.questions().values():
            yield records.QuestionRecord.from_question(q)

    # -- indexes for browsing ------------------------------------------------------------------------

    def _query(self, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
        with store_errors(self.dir):
            return self.conn.execute(sql, args).fetchall()

    def summaries(self, limit: int | None = None) -> list[tuple]:
        """Every decision as one short tuple, in stored order: (job_key, judge, agent, protocol, task,
        question_id, assignment, answer_order, answer, correct, P(answer 1), P(answer 2), debiased,
        unjudged: an imported room nobody judged); the first `limit` only, if given."""
        cur = self.conn.cursor()
        cur.row_factory = None  # plain tuples: 100,000 of them build several times faster than Rows
        with store_errors(self.dir):
            rows = cur.execute(
                "SELECT job_key, judge, agent, protocol, task, question_id, assignment, answer_order,"
                " json_extract(data, '$.answer'), json_extract(data, '$.correct'), json_extract(data, '$.probs[0]'),"
                " json_extract(data, '$.probs[1]'), json_extract(data, '$.extra.debiased'), json_extract(data, '$.unjudged')"
                " FROM records WHERE kind='decision' ORDER BY id"
                + ("" if limit is None else f" LIMIT {int(limit)}")).fetchall()
        for r in rows:
            where = f"the decision of job {str(r[0])[:80]!r}"
            check_record_fields(self.dir, {"judge": r[1], "protocol": r[3], "task": r[4], "question_id": r[5]}, where)
            for value, (fits, expected), name in zip(r, _SUMMARY, _SUMMARY_NAMES):
                if not fits(value):
                    raise damaged_error(self.dir, f"{where}: field {name} holds {type(value).__name__} {repr(value)[:40]}; "
                                                  f"expected {expected}")
        return rows

    def turn_flags(self, job_keys: list[str] | None = None) -> dict[tuple[str, str], tuple[int, int, int, int]]:
        """(job_key, judge) -> (arguing turns, forced, cut, argument-less), as analysis/quality counts them
        (of the given jobs only, if given)."""
        only = "" if job_keys is None else f" AND job_key IN ({','.join('?' * len(job_keys))})"
        rows = self._query(
            "SELECT job_key, judge, COUNT(*),"
            " SUM(COALESCE(json_extract(data, '$.extra.budget.forced'), 0)),"
            " SUM(COALESCE(json_extract(data, '$.extra.budget.cut'), 0)),"
            " SUM(COALESCE(json_extract(data, '$.shown'), json_extract(data, '$.content')) = ?)"
            " FROM records WHERE kind='turn' AND json_extract(data, '$.role') IN (?, ?)" + only + " GROUP BY job_key, judge",
            (NO_ARGUMENT, *ARGUING_ROLES, *(job_keys or ())))
        return {(r[0], r[1]): (r[2], r[3] or 0, r[4] or 0, r[5] or 0) for r in rows}

    def question_briefs(self, keys: list[tuple[str, str]] | None = None) -> dict[tuple[str, str], tuple[str, str]]:
        """(task, question_id) -> (question text, task type), without articles or images (of `keys` only, if given)."""
        sql = "SELECT task, question_id, json_extract(data, '$.question'), json_extract(data, '$.task_type') FROM questions"
        if keys is None:
            rows = self._query(sql)
        else:
            rows = [r for k in keys for r in self._query(sql + " WHERE task=? AND question_id=?", tuple(k))]
        for r in rows:  # the two fields as `schema.QUESTION` has them, as load_question would check
            for value, name in ((r[2], "question"), (r[3], "task_type")):
                if value is not None and not isinstance(value, str):
                    raise damaged_error(self.dir, f"question {r[0]}/{r[1]}: field {name} holds {type(value).__name__} "
                                                  f"{repr(value)[:40]}; expected text")
        return {(r[0], r[1]): (r[2] or "", r[3] or "") for r in rows}

    def question(self, task: str, question_id: str) -> Question | None:
        row = self._query("SELECT data FROM questions WHERE task=? AND question_id=?", (task, question_id))
        return load_question(self.dir, row[0][0], task, question_id) if row else None

    def job_records(self, job_key: str) -> list[records.Turn | records.Decision]:
        """Every record of one job (each judge's turns and decision), typed, secrets redacted; each
        keeps its stored dict (`stored()`: exactly as stored, key order included, for the raw view)."""
        out = []
        for r in self._query("SELECT * FROM records WHERE job_key=? ORDER BY judge, seq", (job_key,)):
            d = read_record(self.dir, r, seq=True)
            d = {k: v if k == "job_key" else redact_obj(v) for k, v in d.items()}
            out.append((records.Turn if d["kind"] == "turn" else records.Decision).from_stored(d, keep=True))
        return out

    def sampling_calls(self, role: str) -> Iterator[records.SampledReplies]:
        """The role's sampling calls that continue no begun reply, without their requests: key, tag,
        the job fields and the reply texts (`request` reads a prompt by its key)."""
        sql = ("SELECT key, tag, protocol, task, question_id, assignment, answer_order, json_extract(response, '$.texts')"
               " FROM calls WHERE role = ? AND json_extract(request, '$.kind') = 'generate'"
               " AND json_extract(request, '$.prefix') IS NULL ORDER BY created, key")
        for r in self._query(sql, (role,)):
            texts = load_json(self.dir, r[7], f"the response of call {str(r[0])[:80]}") if r[7] else []
            if not schema.TEXTS[0](texts):
                raise damaged_error(self.dir, f"call {str(r[0])[:16]}: field response.texts holds {type(texts).__name__}; "
                                              f"expected {schema.TEXTS[1]}")
            yield records.SampledReplies(key=r[0], tag=str(r[1] or ""), protocol=r[2], task=r[3], question_id=r[4],
                                         assignment=r[5], answer_order=r[6], texts=texts)

    def room_texts(self) -> Iterator[tuple[str, str, str]]:
        """(job_key, agent, text) per job and agent: every turn's shown text (its content where none
        was shown), every judge's raw output and the answers shown, for full-text search; SQLite
        extracts the fields."""
        cur = self.conn.cursor()
        cur.row_factory = None
        with store_errors(self.dir):
            yield from cur.execute(
                "SELECT job_key, COALESCE(agent, ''), group_concat(COALESCE(json_extract(data, '$.shown'),"
                " json_extract(data, '$.content'), '') || ' ' || COALESCE(json_extract(data, '$.raw'), '') || ' ' ||"
                " COALESCE(json_extract(data, '$.answers'), ''), char(10))"
                " FROM records GROUP BY job_key, agent")

    def article_texts(self) -> Iterator[tuple[str, str, str]]:
        """(task, question_id, article) of every stored question that has one."""
        cur = self.conn.cursor()
        cur.row_factory = None
        with store_errors(self.dir):
            yield from cur.execute("SELECT task, question_id, json_extract(data, '$.article') FROM questions"
                                   " WHERE json_extract(data, '$.article') IS NOT NULL")

    def call_totals(self) -> list[tuple[str, str, int, int, int, float]]:
        """(model, role, calls, prompt tokens, completion tokens, summed seconds) per model and role."""
        return [tuple(r) for r in self._query(
            "SELECT model, COALESCE(role, ''), COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0),"
            " COALESCE(SUM(latency_s), 0) FROM calls GROUP BY model, role ORDER BY model, role")]

    def cell_calls(self) -> dict[tuple[str, str], tuple[int, int]]:
        """(protocol, task) -> (calls, prompt + completion tokens) of every role, as stored."""
        return {(r[0], r[1]): (r[2], r[3]) for r in self._query(
            "SELECT protocol, task, COUNT(*), COALESCE(SUM(COALESCE(prompt_tokens, 0) + COALESCE(completion_tokens, 0)), 0)"
            " FROM calls GROUP BY protocol, task")}

    def request(self, key: str) -> records.Request | None:
        """One stored call's request, typed, secrets redacted (None: no such call)."""
        row = self._query("SELECT request FROM calls WHERE key = ?", (key,))
        if not row:
            return None
        request = load_json(self.dir, row[0][0], f"the request of call {key[:80]}")
        problem = schema.misfit(request, schema.CALL["request"], "request")
        if problem:
            raise damaged_error(self.dir, f"call {key[:16]}: {problem}")
        return records.Request.from_stored(redact_obj(request))

    def calls_of(self, protocol: str, task: str, question_id: str, assignment: str | None,
                 answer_order: str | None) -> Iterator[records.Call]:
        """The model calls made for one job's fields, typed, oldest first; each keeps its stored dict
        (`stored()["request"]`: the exact request sent, secrets redacted)."""
        sql = ("SELECT * FROM calls WHERE protocol=? AND task=? AND question_id=? AND assignment IS ? AND answer_order IS ?"
               " ORDER BY created, key")
        for r in self._query(sql, (protocol, task, question_id, assignment, answer_order)):
            d = load_call(self.dir, r)
            d["request"] = redact_obj(d["request"])
            yield records.Call.from_stored(d, keep=True)


#: the name `oversight-bench view` and the plugins knew the reader by (api exports both)
ReadOnlyRun = RunReader
