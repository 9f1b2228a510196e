"""Opening a run's store read-only, writing nothing into the run folder (`connect_readonly`: how
every reader opens a store), and the integrity check a whole-run reader makes first."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import weakref
from pathlib import Path
from urllib.parse import quote

from oversight_bench.errors import BenchError, disk_full
from oversight_bench.rundir.names import DB_NAME
from oversight_bench.rundir.rows import damaged_error
from oversight_bench.rundir.store_errors import BUSY_TIMEOUT_S, store_errors


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
