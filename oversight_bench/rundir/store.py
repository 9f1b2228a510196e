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
kind, a transcript's speakers); this module holds the storage itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import fcntl
import hashlib
import json
import math
import os
import queue
import shutil
import sqlite3
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import quote

import orjson

from oversight_bench.errors import BenchError, disk_full, disk_full_error
from oversight_bench.questions import Question
from oversight_bench.redact import redact_obj, scrub_known
from oversight_bench.rundir import records
from oversight_bench.rundir.folders import link_kind
from oversight_bench.rundir.legacy import MIGRATIONS, READABLE_AS_IS, V1_TABLES, redacted_config, unversioned_format
from oversight_bench.rundir.names import CONFIG_NAME, DB_NAME
from oversight_bench.rundir.rows import (check_columns, check_job, check_response, damaged_error, load_call, load_json,
                                         load_question, question_to_dict, read_config_file, read_record)

#: writes handed to the store's writer at once, at most
BOX_WRITES = 64

#: seconds a store another process holds locked is waited for (SQLite's busy timeout) before the
#: command stops with one line saying so
BUSY_TIMEOUT_S = 5.0

#: the store's format, kept in SQLite's `PRAGMA user_version`. Bump it when a change makes old
#: runs unreadable, and add the step that upgrades them to `legacy.MIGRATIONS`.
SCHEMA_VERSION = 2

#: fields every turn and decision record carries
JOB_FIELDS = ("judge", "agent", "protocol", "task", "question_id", "assignment", "answer_order")

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    role TEXT,
    tag TEXT,
    protocol TEXT, task TEXT, question_id TEXT, assignment TEXT, answer_order TEXT,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    prompt_tokens INTEGER, completion_tokens INTEGER,
    latency_s REAL, attempts INTEGER DEFAULT 1,
    created REAL
);
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,           -- turn | decision
    job_key TEXT NOT NULL,
    seq INTEGER NOT NULL,         -- turn index within the job; -1 for the decision
    judge TEXT, agent TEXT, protocol TEXT, task TEXT, question_id TEXT,
    assignment TEXT, answer_order TEXT, round INTEGER,
    data TEXT NOT NULL,
    created REAL,
    UNIQUE (kind, job_key, judge, seq)
);
CREATE INDEX IF NOT EXISTS records_job ON records (job_key, judge);
CREATE TABLE IF NOT EXISTS questions (
    task TEXT, question_id TEXT, data TEXT NOT NULL, PRIMARY KEY (task, question_id)
);
CREATE TABLE IF NOT EXISTS skipped (
    task TEXT, reason TEXT, count INTEGER, PRIMARY KEY (task, reason)
);
-- the run's identity (key 'identity': JSON), so a resume is checked against the store itself
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
#: the tables of a store in the current format
TABLES = frozenset({"calls", "records", "questions", "skipped", "meta"})


def canonical_json(request: dict[str, Any]) -> str:
    """The request as canonical JSON (sorted keys, compact, UTF-8 unescaped): hashed for the key,
    stored as is. It is on the path of every call, so orjson writes it (about 15x faster) when
    that gives the very bytes of `json.dumps(sort_keys=True, ensure_ascii=False, separators=(",",
    ":"))`: always, except for floats json writes with an exponent or as NaN/Infinity."""
    if _orjson_safe(request):
        return orjson.dumps(request, option=orjson.OPT_SORT_KEYS).decode()
    return json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _orjson_safe(obj: Any) -> bool:
    """Whether orjson writes `obj` exactly as json.dumps would: plain types only (no subclasses,
    which orjson rejects or writes differently), str keys, ints within 64 bits, and floats that
    json writes without an exponent."""
    t = type(obj)
    if t is str or t is bool or obj is None:
        return True
    if t is float:
        return math.isfinite(obj) and "e" not in repr(obj)
    if t is int:
        return -(2**63) <= obj < 2**64
    if t is dict:
        return all(type(k) is str and _orjson_safe(v) for k, v in obj.items())
    if t is list or t is tuple:
        return all(_orjson_safe(v) for v in obj)
    return False


def dumps(obj: Any) -> str:
    """A record's JSON text (int keys allowed, as `json.dumps` writes them). An integer past 64 bits,
    which orjson cannot write (one read back from another store, say), is written by json."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def request_key(request: dict[str, Any] | str) -> str:
    """The cache key: sha256 of the canonical JSON of the full request."""
    blob = request if isinstance(request, str) else canonical_json(request)
    return hashlib.sha256(blob.encode()).hexdigest()


_INSERT_CALL = ("INSERT OR IGNORE INTO calls (key, model, role, tag, protocol, task, question_id, assignment, answer_order,"
                " request, response, prompt_tokens, completion_tokens, latency_s, attempts, created)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_INSERT_QUESTION = "INSERT OR IGNORE INTO questions VALUES (?,?,?)"
_INSERT_RECORD = ("INSERT OR IGNORE INTO records (kind, job_key, seq, judge, agent, protocol, task, question_id,"
                  " assignment, answer_order, round, data, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")


def locked_error(directory: Path) -> BenchError:
    return BenchError(f"{directory / DB_NAME} is locked: another process holds it (waited {BUSY_TIMEOUT_S:g} s); run the "
                      f"same command again once that process has finished (finished records are saved)")


def lock_directory(directory: Path) -> int:
    """Take the run folder's writer lock: an OS lock (`flock`) on the folder itself, held open for the
    whole run. No file stands for it, so deleting one (an old `.lock`) cannot let a second writer in;
    the kernel drops it when the process ends, however it ends. Returns the descriptor holding it."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise BenchError(f"cannot write to output directory {directory}: {exc.strerror}; expected a writable folder") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise BenchError(f"output directory {directory} is in use by another oversight-bench process; "
                         f"wait for it to finish or choose another --output") from None
    return fd


def refuse_linked_store(directory: Path) -> None:
    """The lock is on the run folder, so a writer writes only that folder's own store: a store file or
    config.json that is a symbolic link (to another run's, which that run's lock guards) or a hard
    link (another name of one) is refused in one line, before anything is written."""
    for name in (DB_NAME, *(DB_NAME + end for end in ("-wal", "-shm", "-journal")), CONFIG_NAME):
        path = directory / name
        what = link_kind(path)
        if what is None:
            continue
        if what == "a symbolic link":
            what += f" (to {os.readlink(path)})"
        raise BenchError(f"{path} is {what}: a run writes only its own folder's store, whose lock that folder holds "
                         f"(another run's store, reached through a link, is guarded by that run's lock); expected a "
                         f"regular file of this folder, or none (copy the run instead of linking it)")


def in_use(directory: str | Path) -> bool:
    """Whether a writer (run, judge, resume) holds the directory's lock now: its records are still
    coming, so what is there is not yet the run's result."""
    try:
        fd = os.open(Path(directory), os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False  # not a folder: nothing writes it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _busy(exc: BaseException) -> bool:
    return ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED


def store_error(directory: Path, exc: BaseException) -> BenchError | None:
    """The one line for an error reading or writing a run's database: a full disk, a lock another
    process held past BUSY_TIMEOUT_S, a read-only store, or a damaged file. None: an error of the
    code itself (a closed connection, a constraint), which stays a traceback."""
    if disk_full(exc, directory):
        return disk_full_error(directory)
    if type(exc) not in (sqlite3.DatabaseError, sqlite3.OperationalError):
        return None
    if _busy(exc):
        return locked_error(directory)
    if ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) == 8:  # SQLITE_READONLY
        return BenchError(f"cannot write to {directory / DB_NAME}: it is read-only ({exc}); expected a writable run folder")
    return damaged_error(directory, str(exc))


@contextlib.contextmanager
def store_errors(directory: Path) -> Iterator[None]:
    """Within it, an SQLite or disk error about the store becomes its one line (`store_error`)."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        error = store_error(directory, exc)
        if error is None:
            raise
        raise error from None


def _maps_store_errors(method):
    """A Store method whose SQLite or disk error becomes one line naming the store (`store_error`)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with store_errors(self.dir):
            return method(self, *args, **kwargs)
    return wrapper


class _SnapshotConnection(sqlite3.Connection):
    """A connection to a private copy of a store (`connect_readonly`): closing it (or dropping it)
    removes the copy."""

    _cleanup: weakref.finalize | None = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._cleanup is not None:
                self._cleanup()


#: times a copy is retried when the store file changed while it was copied (a writer checkpointing)
_SNAPSHOT_TRIES = 5


def _snapshot(directory: Path) -> str:
    """A private temporary folder holding a copy of the store and its write-ahead log, taken while a
    writer may be appending: the store is copied first, then the log, and the copy is taken again
    where the store itself changed meanwhile (a checkpoint). A frame the writer was still writing is
    torn in the copy and fails its checksum, so SQLite ignores it: the copy holds every transaction
    committed before it was taken. No -shm is copied: SQLite rebuilds the log's index from the log."""
    db, wal = directory / DB_NAME, directory / (DB_NAME + "-wal")
    try:
        tmp = tempfile.mkdtemp(prefix="oversight-bench-read-")
    except OSError as exc:
        raise BenchError(f"{wal} holds records not yet in {db.name}; reading them needs a private copy, but no temporary "
                         f"folder is writable ({exc.strerror}); expected a writable TMPDIR") from None
    try:
        for _ in range(_SNAPSHOT_TRIES):
            before = os.stat(db)
            shutil.copyfile(db, os.path.join(tmp, DB_NAME))
            try:
                shutil.copyfile(wal, os.path.join(tmp, DB_NAME + "-wal"))
            except FileNotFoundError:  # the writer closed (and checkpointed) meanwhile: copy the store again
                continue
            after = os.stat(db)
            if (before.st_size, before.st_mtime_ns, before.st_ino) == (after.st_size, after.st_mtime_ns, after.st_ino):
                return tmp
        raise BenchError(f"{db} kept changing while it was read (a writer checkpointing it); run the same command again, "
                         f"or once that writer has finished")
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if disk_full(exc, Path(tmp)):
            raise BenchError(f"no space left in the temporary folder {tempfile.gettempdir()} for a private copy of {db} and "
                             f"its write-ahead log; free some space or set TMPDIR to a roomier folder") from None
        raise BenchError(f"cannot copy {db} and its write-ahead log to read them ({exc.strerror}: {exc.filename}); "
                         f"expected a readable run folder and a writable TMPDIR") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def connect_readonly(directory: Path) -> sqlite3.Connection:
    """A run's database opened read-only, writing nothing into the run folder: how every reader
    (report, export, leaderboard, elo, view, `judge --from`, salvage, --cache-from) opens a store, so
    a run reads on a read-only file system and stays byte for byte as it was (no file added, none
    changed, not even the log's -shm).

    A run closed cleanly has no write-ahead log with content beside it: `immutable` (no file created,
    no lock taken; the file holds every committed record). Beside a log with content (a run in
    progress, or one that crashed): a private temporary copy of the store and its log (`_snapshot`),
    opened there and removed when the connection closes, so the log's committed records are read
    and the run's files are untouched (opening the log in place would create or rewrite its -shm).
    Beside a rollback journal: `mode=ro`."""
    db = directory / DB_NAME
    wal, journal = directory / (DB_NAME + "-wal"), directory / (DB_NAME + "-journal")
    with store_errors(directory):
        logged = wal.exists() and wal.stat().st_size > 0
        if logged:
            tmp = _snapshot(directory)
            try:
                conn = sqlite3.connect(f"file:{quote(os.path.join(tmp, DB_NAME))}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S,
                                       isolation_level=None, check_same_thread=False, factory=_SnapshotConnection)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            conn._cleanup = weakref.finalize(conn, shutil.rmtree, tmp, True)
            return conn
        mode = "ro" if journal.exists() else "ro&immutable=1"
        return sqlite3.connect(f"file:{quote(str(db.absolute()))}?mode={mode}", uri=True, timeout=BUSY_TIMEOUT_S,
                               isolation_level=None, check_same_thread=False)


def check_integrity(directory: Path, conn: sqlite3.Connection) -> None:
    """`PRAGMA quick_check` (every page and index readable and consistent): a damaged store is
    refused at once, not half-read into a report or resumed over."""
    with store_errors(directory):
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
    if rows != ["ok"]:
        raise damaged_error(directory, "; ".join(map(str, rows))[:200])


class _KeyFilter:
    """A Bloom filter of the call keys in the store (1 MiB whatever the run's size): a key it has
    never seen is certainly not cached, so most calls skip the lookup query. A false positive
    (about 1 in 20,000 at 100k keys) only costs the query."""

    BITS = 1 << 23

    def __init__(self) -> None:
        self.bits = bytearray(self.BITS // 8)

    def _positions(self, key: str) -> tuple[int, int, int]:
        # a key is a sha256 hex digest: three disjoint 48-bit slices are independent hashes
        m = self.BITS - 1
        try:
            return int(key[0:12], 16) & m, int(key[12:24], 16) & m, int(key[24:36], 16) & m
        except ValueError:  # a key written by other tools: hash it first
            h = hashlib.sha256(key.encode()).hexdigest()
            return int(h[0:12], 16) & m, int(h[12:24], 16) & m, int(h[24:36], 16) & m

    def add(self, key: str) -> None:
        for i in self._positions(key):
            self.bits[i >> 3] |= 1 << (i & 7)

    def __contains__(self, key: str) -> bool:
        return all(self.bits[i >> 3] & (1 << (i & 7)) for i in self._positions(key))


class _Writer(threading.Thread):
    """Commits queued calls and job records in groups, one transaction per group, on its own
    connection.

    The event loop hands its writes over once per loop pass (`Store._enqueue`), not once per
    write: each hand-over wakes this thread, and every wake-up costs the loop the GIL. Waiting
    `delay` seconds after a hand-over lets a group fill up under load. An error is kept and
    raised in the caller's thread at its next write or flush.
    """

    def __init__(self, path: Path, pending: dict[str, dict], delay: float = 0.005):
        super().__init__(name="oversight-bench-store-writer", daemon=True)
        self.conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA synchronous=NORMAL")
        # boxes of at most BOX_WRITES writes: a full queue blocks the loop (backpressure), so at
        # most a few thousand writes wait in memory however far the disk (or the GIL) holds it back
        self.q: queue.Queue = queue.Queue(maxsize=64)
        self.pending = pending
        self.delay = delay
        self.error: BaseException | None = None

    def run(self) -> None:
        stop = False
        while not stop:
            boxes = [self.q.get()]
            if boxes[0] is not None:
                time.sleep(self.delay)
            while len(boxes) < 2048:
                try:
                    boxes.append(self.q.get_nowait())
                except queue.Empty:
                    break
            stop = any(box is None for box in boxes)
            items = [item for box in boxes if box is not None for item in box]
            try:
                if items and self.error is None:
                    self._commit(items)
            except BaseException as exc:  # surfaced to the writer's owner
                self.error = exc
            finally:
                for kind, rows in items:
                    if kind == "call":
                        self.pending.pop(rows[0], None)
                for _ in boxes:
                    self.q.task_done()
        self.conn.close()

    def _commit(self, items: list[tuple[str, Any]]) -> None:
        """One transaction: a job's records never commit before its calls."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(_INSERT_QUESTION, [r for kind, rows in items if kind == "questions" for r in rows])
            self.conn.executemany(_INSERT_CALL, [rows for kind, rows in items if kind == "call"])
            self.conn.executemany(_INSERT_RECORD, [r for kind, rows in items if kind == "job" for r in rows])


def _schema_version(conn: sqlite3.Connection, directory: Path) -> int:
    """The store format of the database (0: empty, new), or a one-line error when this version
    of oversight-bench cannot read it."""
    db = directory / DB_NAME
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        if _busy(exc):
            raise locked_error(directory) from None
        raise BenchError(f"{db} is not a readable oversight-bench store ({exc}); use another --output or restore the file") from None
    if version > SCHEMA_VERSION:
        raise BenchError(f"{db} was written by a newer oversight-bench (store format {version}; this version reads up to "
                         f"{SCHEMA_VERSION}); upgrade oversight-bench to read it")
    if version == 0 and tables:
        old = unversioned_format(tables)
        if old is None:
            raise BenchError(f"{db} is not an oversight-bench store (tables: {', '.join(sorted(tables))}); use another --output")
        return old
    if version and version != SCHEMA_VERSION and version not in MIGRATIONS:
        raise BenchError(f"{db} uses store format {version}, which this version of oversight-bench cannot read or upgrade")
    missing = sorted((V1_TABLES if version == 1 else TABLES) - tables) if version else []
    if missing:
        raise damaged_error(directory, f"table {', '.join(missing)} is missing")
    return version



def _names(directory: Path) -> set[str]:
    try:
        return {p.name for p in directory.iterdir()}
    except OSError:
        return set()


def remove_new_store_files(directory: Path, found: set[str]) -> None:
    """Remove the store files (results.sqlite and its -wal, -shm, -journal) that are in `directory`
    but not in `found`: called with the folder's lock held, they are the caller's own."""
    for name in _names(directory) - found:
        if name == DB_NAME or name.startswith(DB_NAME + "-"):
            with contextlib.suppress(OSError):
                (directory / name).unlink()


class RecordReads:
    """Reading a store's records whole, the one implementation of it: shared by the one reader
    (`reader.RunReader`) and by the writer (`Store`: a resume's checks, the end-of-run summary).
    Needs `dir` and `conn` (rows as `sqlite3.Row`)."""

    dir: Path
    conn: sqlite3.Connection

    def read_config(self) -> dict[str, Any] | None:
        config = read_config_file(self.dir)
        return None if config is None else redacted_config(config)

    def questions(self) -> dict[tuple[str, str], Any]:
        return {(r["task"], r["question_id"]): load_question(self.dir, r["data"], r["task"], r["question_id"])
                for r in self._select("SELECT * FROM questions")}

    def _select(self, sql: str, args: tuple = ()) -> Iterator[sqlite3.Row]:
        """The rows of a query; an SQLite error on the way (a damaged page, a lock held elsewhere past
        BUSY_TIMEOUT_S) is one line naming the store."""
        with store_errors(self.dir):
            for row in self.conn.execute(sql, args):
                yield row

    def _one(self, sql: str, args: tuple = ()) -> sqlite3.Row | None:
        return next(self._select(sql, args), None)

    def _iter_records(self, kind: str | None = None) -> Iterator[dict[str, Any]]:
        """Turn and decision records as flat dicts with their explicit fields (what `records` types)."""
        sql = "SELECT * FROM records" + (" WHERE kind=?" if kind else "") + " ORDER BY id"
        for r in self._select(sql, (kind,) if kind else ()):
            yield read_record(self.dir, r)

    def _iter_calls(self) -> Iterator[dict[str, Any]]:
        for r in self._select("SELECT * FROM calls ORDER BY created, key"):
            yield {**load_call(self.dir, r), "kind": "call"}

    # -- typed records (rundir.records) --------------------------------------------------------------
    def records(self, kind: str | None = None, *, keep: bool = False) -> Iterator[records.Turn | records.Decision]:
        """Turns and decisions (of `kind` only, if given), typed, in stored order: a job's turns come
        just before its decision. `keep`: each keeps its stored dict (`stored()`: exactly as stored)."""
        for d in self._iter_records(kind):
            yield (records.Turn if d["kind"] == "turn" else records.Decision).from_stored(d, keep=keep)

    def decisions(self) -> Iterator[records.Decision]:
        return self.records("decision")

    def turns(self) -> Iterator[records.Turn]:
        return self.records("turn")

    def calls(self, *, keep: bool = False) -> Iterator[records.Call]:
        """Every stored call, typed, oldest first (`keep`: as in `records`)."""
        for c in self._iter_calls():
            yield records.Call.from_stored(c, keep=keep)

    def count(self, kind: str) -> int:
        if kind == "call":
            return self._one("SELECT COUNT(*) FROM calls")[0]
        return self._one("SELECT COUNT(*) FROM records WHERE kind=?", (kind,))[0]


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
        self._writer: _Writer | None = None
        self._keys: _KeyFilter | None = None  # while batching: which keys may be cached
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
            found = _names(directory)
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
            version = _schema_version(conn, directory)
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
    @_maps_store_errors
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

    @_maps_store_errors
    def write_identity(self, identity: dict[str, Any]) -> None:
        text = json.dumps(redact_obj(identity), sort_keys=True, default=str)
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (self.IDENTITY_KEY, text))

    def holds_work(self) -> bool:
        """Whether anything was stored: questions, calls or records."""
        return any(self._one(f"SELECT 1 FROM {t} LIMIT 1") for t in ("questions", "calls", "records"))

    # -- batching ----------------------------------------------------------------------------------
    @_maps_store_errors
    def begin_batching(self) -> None:
        """Send writes to a background writer that group-commits them in order (see module doc)."""
        if self._writer is None:
            keys = _KeyFilter()
            for (key,) in self.conn.execute("SELECT key FROM calls"):
                keys.add(key)
            self._keys = keys
            self._writer = _Writer(self.dir / DB_NAME, self._pending)
            self._writer.start()

    @_maps_store_errors
    def flush(self) -> None:
        """Wait until everything written so far is committed."""
        if self._writer is not None:
            self._hand_over()
            self._writer.q.join()
            self._raise_writer_error()

    @_maps_store_errors
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

    @_maps_store_errors
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

    @_maps_store_errors
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
            self.conn.execute(_INSERT_CALL, row)

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

    @_maps_store_errors
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
            self.conn.executemany(_INSERT_RECORD, rows)

    @_maps_store_errors
    def put_questions(self, questions: Iterable[Question]) -> None:
        """Store each question once, so a run can be re-judged or reported without the data dir.
        While batching (a streamed run) they go through the writer, ahead of their jobs' records."""
        rows = ((q.task, q.id, dumps(question_to_dict(q))) for q in questions)
        if self._writer is not None:
            self._enqueue(("questions", list(rows)))
            return
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(_INSERT_QUESTION, rows)  # a generator: no second copy in memory

    @_maps_store_errors
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
