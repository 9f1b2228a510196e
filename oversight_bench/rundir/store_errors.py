"""An SQLite or disk error about a run's store as the one line it prints (`store_error`), and the
busy timeout every connection waits for a store another process holds."""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from pathlib import Path
from typing import Iterator

from oversight_bench.errors import BenchError, disk_full, disk_full_error
from oversight_bench.rundir.names import DB_NAME
from oversight_bench.rundir.rows import damaged_error

#: seconds a store another process holds locked is waited for (SQLite's busy timeout) before the
#: command stops with one line saying so
BUSY_TIMEOUT_S = 5.0


def locked_error(directory: Path) -> BenchError:
    return BenchError(f"{directory / DB_NAME} is locked: another process holds it (waited {BUSY_TIMEOUT_S:g} s); run the "
                      f"same command again once that process has finished (finished records are saved)")


def busy(exc: BaseException) -> bool:
    return ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED


def store_error(directory: Path, exc: BaseException) -> BenchError | None:
    """The one line for an error reading or writing a run's database: a full disk, a lock another
    process held past BUSY_TIMEOUT_S, a read-only store, or a damaged file. None: an error of the
    code itself (a closed connection, a constraint), which stays a traceback."""
    if disk_full(exc, directory):
        return disk_full_error(directory)
    if type(exc) not in (sqlite3.DatabaseError, sqlite3.OperationalError):
        return None
    if busy(exc):
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


def maps_store_errors(method):
    """A Store method whose SQLite or disk error becomes one line naming the store (`store_error`)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with store_errors(self.dir):
            return method(self, *args, **kwargs)
    return wrapper
