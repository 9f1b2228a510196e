"""The store's format: its tables (`SCHEMA`), its version (`SCHEMA_VERSION`, in SQLite's `PRAGMA
user_version`) and the format of a database opened (`store_format`), older formats told apart by
`rundir.legacy`, the one place that knows them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from oversight_bench.errors import BenchError
from oversight_bench.rundir.legacy import MIGRATIONS, V1_TABLES, unversioned_format
from oversight_bench.rundir.names import DB_NAME
from oversight_bench.rundir.rows import damaged_error
from oversight_bench.rundir.store_errors import busy, locked_error

#: the store's format, kept in SQLite's `PRAGMA user_version`. Bump it when a change makes old
#: runs unreadable, and add the step that upgrades them to `legacy.MIGRATIONS`.
SCHEMA_VERSION = 2

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


def store_format(conn: sqlite3.Connection, directory: Path) -> int:
    """The store format of the database (0: empty, new), or a one-line error when this version
    of oversight-bench cannot read it."""
    db = directory / DB_NAME
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        if busy(exc):
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
