"""The crash-safe results store: one SQLite database (WAL) per run directory.

Three record kinds with explicit fields: `call` (every model call, which is also the cache,
keyed by the full request), `turn` and `decision`. A job's turns and decision are written in one
transaction, so a SIGKILL at any moment leaves either the whole job or none of it; the calls it
already made stay cached, so a resume replays them for free.

During a run, writes go through a background writer (`begin_batching`): the event loop hands
them over once per loop pass, in the order they were made, and the writer commits each group in
one transaction. A job's questions and calls are therefore always committed in the same or an
earlier transaction than its records, so a kill loses at most the last few milliseconds of
work, which the resume redoes, and never leaves a record whose calls are missing.

Every row is checked where it is read or written by `rows` (strict JSON, each record against its
kind, a transcript's speakers); the store's modules hold the storage itself.

The store's parts, each in its own module: its format and tables (`format`), the JSON it writes
(`encoding`), the folder's writer lock (`locking`), the read-only opening every reader uses
(`connect`), the one line an SQLite error becomes (`store_errors`), the background writer
(`writer`) and whole-record reads (`record_reads`). This module holds `Store` (opening, writing,
the call cache) and `SharedCalls` (`--cache-from`), and names the parts' public names, which the
rest of the package and the plugins import from here.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

from oversight_bench.errors import BenchError
from oversight_bench.questions import Question
from oversight_bench.redact import redact_obj, scrub_known
from oversight_bench.rundir.connect import check_integrity, connect_readonly
from oversight_bench.rundir.encoding import canonical_json, dumps, request_key
from oversight_bench.rundir.format import SCHEMA, SCHEMA_VERSION, TABLES, store_format
from oversight_bench.rundir.legacy import MIGRATIONS, READABLE_AS_IS
from oversight_bench.rundir.locking import folder_names, in_use, lock_directory, refuse_linked_store, remove_new_store_files
from oversight_bench.rundir.names import CONFIG_NAME, DB_NAME
from oversight_bench.rundir.record_reads import RecordReads
from oversight_bench.rundir.rows import check_columns, check_job, check_response, damaged_error, load_json, question_to_dict
from oversight_bench.rundir.store_errors import BUSY_TIMEOUT_S, maps_store_errors, store_error, store_errors
from oversight_bench.rundir.writer import (BOX_WRITES, INSERT_CALL, INSERT_QUESTION, INSERT_RECORD, BackgroundWriter,
                                           KeyFilter)

#: the names the rest of the package (and tests, benchmarks) import from here
__all__ = ["BUSY_TIMEOUT_S", "JOB_FIELDS", "SCHEMA", "SCHEMA_VERSION", "TABLES", "RecordReads", "SharedCalls", "Store",
           "canonical_json", "connect_readonly", "dumps", "in_use", "lock_directory", "refuse_linked_store",
           "remove_new_store_files", "request_key", "store_error", "store_errors"]

#: fields every turn and decision record carries
JOB_FIELDS = ("judge", "agent", "protocol", "task", "question_id", "assignment", "answer_order")


class Store(RecordReads):
    """A run directory's database. `Store.open(dir)` reads, strictly read-only (`connect_readonly`:
    what `reader.RunReader(check_pages=True)`, the reader every command uses, opens it with);
    only the run-directory package opens one with `write=True` (a command's start, an import,
    salvage), which also takes the directory's lock. Every SQLite error and unreadable row becomes
    one line naming the store (`store_error`, `load_json`)."""

    def __init__(self, directory: Path, conn: sqlite3.Connection, lock_fd: int | None):
        self.dir = directory
        #: opened for writing: the folder's names when its lock was taken (anything else there now is
        #: this process's, since no other writer can have been in it since)
        self.found: set[str] = set()
        self.conn = conn
        self._lock_fd = lock_fd
        self._writer: BackgroundWriter | None = None
        self._keys: KeyFilter | None = None  # while batching: which keys may be cached
        self._pending: dict[str, dict] = {}  # calls queued but not yet committed: still cache hits
        self._outbox: list | None = None  # writes of this loop pass, not yet handed to the writer

    @classmethod
    def open(cls, directory: str | Path, *, write: bool = False) -> "Store":
        directory = Path(directory)
        lock_fd = None
        found: set[str] = set()  # the folder's names once locked: what this open did not create
        if write:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BenchError(f"cannot write to output directory {directory}: {exc.strerror}; expected a writable folder") from None
            lock_fd = lock_directory(directory)
            try:
                refuse_linked_store(directory)
            except BenchError:
                os.close(lock_fd)
                raise
            found = folder_names(directory)
        elif not (directory / DB_NAME).exists():
            raise BenchError(f"{directory} is not a run directory: expected {directory / DB_NAME} (written by 'oversight-bench run')")
        db = directory / DB_NAME
        # a 0-byte store beside a config.json (and no write-ahead log holding its pages) lost its
        # contents: it is damaged, not a new run
        wal = directory / (DB_NAME + "-wal")
        if (db.exists() and db.stat().st_size == 0 and not (wal.exists() and wal.stat().st_size)
                and (not write or (directory / CONFIG_NAME).exists())):
            if lock_fd is not None:
                os.close(lock_fd)
            raise damaged_error(directory, "0 bytes, although config.json says a run was started here")
        conn = None
        try:
            conn = (sqlite3.connect(db, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False) if write
                    else connect_readonly(directory))
            conn.row_factory = sqlite3.Row
            check_integrity(directory, conn)
            version = store_format(conn, directory)
            if write:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                # the write lock, taken once now: a store another process is writing is waited for
                # (BUSY_TIMEOUT_S) and then refused in one line, before any work is done
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("COMMIT")
                while version in MIGRATIONS:  # an older, upgradable run: bring it up to date
                    version = MIGRATIONS[version](conn)
                conn.executescript(SCHEMA)
                if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:  # a new store
                    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            elif version in MIGRATIONS and version not in READABLE_AS_IS:
                raise BenchError(f"{directory} holds a run in an older store format (version {version}); "
                                 f"resume it once with 'oversight-bench run' (same settings) to upgrade it")
            check_columns(directory, conn)
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if lock_fd is not None:
                remove_new_store_files(directory, found)  # still locked: any new store file is this open's
                os.close(lock_fd)
            if isinstance(exc, (OSError, sqlite3.Error)) and (error := store_error(directory, exc)) is not None:
                raise error from None
            raise
        store = cls(directory, conn, lock_fd)
        store.found = found
        return store

    def close(self) -> None:
        try:
            self.end_batching()
        finally:
            self._close()

    def detach_lock(self) -> int | None:
        """Hand the folder's lock to the caller, who closes it: kept past `close` to undo a start."""
        fd, self._lock_fd = self._lock_fd, None
        return fd

    def _close(self) -> None:
        self.conn.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- config (read: RecordReads.read_config) -----------------------------------------------------
    @maps_store_errors
    def write_config(self, config: dict[str, Any]) -> None:
        """Written whole or not at all (a temporary file, then renamed), with every secret redacted."""
        tmp = self.dir / (CONFIG_NAME + ".tmp")
        try:
            tmp.write_text(json.dumps(redact_obj(config), indent=2, sort_keys=True, default=str))
            os.replace(tmp, self.dir / CONFIG_NAME)
        finally:
            tmp.unlink(missing_ok=True)

    # -- identity ----------------------------------------------------------------------------------
    IDENTITY_KEY = "identity"

    def read_identity(self) -> dict[str, Any] | None:
        """The identity recorded by the run (None: none recorded, see `identity.check_identity`). Kept in
        the database, so deleting or editing config.json does not change it."""
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key=?", (self.IDENTITY_KEY,)).fetchone()
        except sqlite3.OperationalError:  # a v1 store (legacy.READABLE_AS_IS) opened read-only has no meta table
            return None
        if row is None:
            return None
        value = load_json(self.dir, row[0], "its recorded identity")
        return value if isinstance(value, dict) else None

    @maps_store_errors
    def write_identity(self, identity: dict[str, Any]) -> None:
        text = json.dumps(redact_obj(identity), sort_keys=True, default=str)
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (self.IDENTITY_KEY, text))

    def holds_work(self) -> bool:
        """Whether anything was stored: questions, calls or records."""
        return any(self._one(f"SELECT 1 FROM {t} LIMIT 1") for t in ("questions", "calls", "records"))

    # -- batching ----------------------------------------------------------------------------------
    @maps_store_errors
    def begin_batching(self) -> None:
        """Send writes to a background writer that group-commits them in order (see module doc)."""
        if self._writer is None:
            keys = KeyFilter()
            for (key,) in self.conn.execute("SELECT key FROM calls"):
                keys.add(key)
            self._keys = keys
            self._writer = BackgroundWriter(self.dir / DB_NAME, self._pending)
            self._writer.start()

    @maps_store_errors
    def flush(self) -> None:
        """Wait until everything written so far is committed."""
        if self._writer is not None:
            self._hand_over()
            self._writer.q.join()
            self._raise_writer_error()

    @maps_store_errors
    def end_batching(self) -> None:
        w = self._writer
        if w is None:
            return
        self._hand_over()
        self._writer = None
        self._keys = None
        w.q.put(None)
        w.join()
        if w.error is not None:
            raise w.error

    @maps_store_errors
    def _raise_writer_error(self) -> None:
        if self._writer is not None and self._writer.error is not None:
            raise self._writer.error

    def _enqueue(self, item: tuple[str, Any]) -> None:
        """Collect the writes of this event-loop pass; they go to the writer at its end, in order."""
        self._raise_writer_error()
        if self._outbox is not None:
            self._outbox.append(item)
            if len(self._outbox) >= BOX_WRITES:
                self._hand_over()
            return
        self._outbox = [item]
        try:
            asyncio.get_running_loop().call_soon(self._hand_over)
        except RuntimeError:  # no event loop: hand over at once
            self._hand_over()

    def _hand_over(self) -> None:
        box, self._outbox = self._outbox, None
        if box and self._writer is not None:
            self._writer.q.put(box)

    # -- calls (the cache) -------------------------------------------------------------------------
    def get_call(self, key: str) -> dict[str, Any] | None:
        hit = self._pending.get(key)
        if hit is not None:
            return hit
        if self._keys is not None and key not in self._keys:
            return None  # never written: no query needed
        row = self._one("SELECT response FROM calls WHERE key=?", (key,))
        return check_response(self.dir, load_json(self.dir, row["response"], f"the response of call {key}"), key) if row else None

    @maps_store_errors
    def put_call(self, key: str, *, model: str, request: dict | str, response: dict, context: dict[str, Any],
                 prompt_tokens: int, completion_tokens: int, latency_s: float, attempts: int = 1) -> None:
        """`request` may be given already serialised (its canonical JSON, as hashed for `key`)."""
        row = (key, model, context.get("role"), context.get("tag"), context.get("protocol"), context.get("task"),
               context.get("question_id"), context.get("assignment"), context.get("answer_order"),
               # the request carries the backend's fingerprint (a base_url, say): no registered secret
               # may stay in it (about 10 us per KB of a call, only while secrets are registered); nor in the
               # response, which a server echoing its request (key, query credential) fills with them
               scrub_known(request if isinstance(request, str) else dumps(request)),
               scrub_known(dumps(response)),
               prompt_tokens, completion_tokens, latency_s, attempts, time.time())
        if self._writer is not None:
            self._pending[key] = response
            self._keys.add(key)
            self._enqueue(("call", row))
        else:
            self.conn.execute(INSERT_CALL, row)

    # -- jobs --------------------------------------------------------------------------------------
    def total_tokens(self) -> int:
        """Tokens (prompt + reply) of every stored call: what the run directory's calls cost so far."""
        row = self._one("SELECT COALESCE(SUM(COALESCE(prompt_tokens, 0) + COALESCE(completion_tokens, 0)), 0) FROM calls")
        return int(row[0]) if row is not None else 0

    def tokens_by_model(self) -> list[tuple[str, int, int]]:
        """(model, prompt tokens, reply tokens) summed over the stored calls of each model (the budget guard's start)."""
        return [(str(r[0]), int(r[1]), int(r[2])) for r in self._select(
            "SELECT model, COALESCE(SUM(COALESCE(prompt_tokens, 0)), 0), COALESCE(SUM(COALESCE(completion_tokens, 0)), 0) "
            "FROM calls GROUP BY model")]

    def done_jobs(self, judge: str) -> set[str]:
        return {r["job_key"] for r in self._select("SELECT job_key FROM records WHERE kind='decision' AND judge=?", (judge,))}

    def has_decision(self, job_key: str, judge: str) -> bool:
        return self._one("SELECT 1 FROM records WHERE kind='decision' AND job_key=? AND judge=?", (job_key, judge)) is not None

    @maps_store_errors
    def write_job(self, job_key: str, fields: dict[str, Any], turns: list[dict], decision: dict) -> None:
        """All records of one job, atomically; refused when a turn names a speaker its protocol does not have."""
        check_job(job_key, fields, turns, decision)
        now = time.time()
        base = tuple(fields.get(f) for f in JOB_FIELDS)
        rows = [("turn", job_key, i, *base, t.get("round"), scrub_known(dumps(t)), now) for i, t in enumerate(turns)]
        rows.append(("decision", job_key, -1, *base, None, scrub_known(dumps(decision)), now))
        if self._writer is not None:
            self._enqueue(("job", rows))  # one transaction, after the job's calls
            return
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(INSERT_RECORD, rows)

    @maps_store_errors
    def put_questions(self, questions: Iterable[Question]) -> None:
        """Store each question once, so a run can be re-judged or reported without the data dir.
        While batching (a streamed run) they go through the writer, ahead of their jobs' records."""
        rows = ((q.task, q.id, dumps(question_to_dict(q))) for q in questions)
        if self._writer is not None:
            self._enqueue(("questions", list(rows)))
            return
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(INSERT_QUESTION, rows)  # a generator: no second copy in memory

    @maps_store_errors
    def record_skipped(self, task: str, skipped: dict[str, int]) -> None:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            for reason, count in skipped.items():
                self.conn.execute("INSERT OR REPLACE INTO skipped VALUES (?,?,?)", (task, reason, count))


class SharedCalls:
    """The model calls stored by other runs, opened read-only (`--cache-from`): a call whose full
    request (model fingerprint, messages, parameters) was answered there is copied, not made again.
    Identical requests get identical answers, so this changes nothing but the time a run takes."""

    def __init__(self, dirs: Iterable[str | Path], output: str | Path):
        self._cons: list[sqlite3.Connection] = []
        dirs = [Path(d) for d in dirs]
        for d in dirs:
            if d.resolve() == Path(output).resolve():
                raise BenchError(f"--cache-from {d} is the output directory itself; name other run directories")
            if not (d / DB_NAME).is_file():
                raise BenchError(f"--cache-from {d}: not a run directory (no {DB_NAME}); expected a stored run")
        self._dirs = dirs
        try:
            for d in dirs:
                self._cons.append(connect_readonly(d))
                self._cons[-1].execute("SELECT key, response FROM calls LIMIT 1").fetchall()
        except (sqlite3.Error, BenchError) as exc:
            self.close()
            raise BenchError(f"--cache-from {d}: its store cannot be read ({exc}); expected a stored run") from None

    def get(self, key: str) -> dict[str, Any] | None:
        for d, con in zip(self._dirs, self._cons):
            with store_errors(d):
                row = con.execute("SELECT response FROM calls WHERE key=?", (key,)).fetchone()
            if row:
                return check_response(d, load_json(d, row[0], f"the response of call {key}"), key)
        return None

    def close(self) -> None:
        for con in self._cons:
            con.close()
        self._cons = []
