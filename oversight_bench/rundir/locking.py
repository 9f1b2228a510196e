"""The run folder's writer lock (an OS lock on the folder itself) and what a writer may write there:
its own store, never one reached through a link; the store files a failed start created are its own
to remove."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from oversight_bench.errors import BenchError
from oversight_bench.rundir.folders import link_kind
from oversight_bench.rundir.names import CONFIG_NAME, DB_NAME


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


def folder_names(directory: Path) -> set[str]:
    try:
        return {p.name for p in directory.iterdir()}
    except OSError:
        return set()


def remove_new_store_files(directory: Path, found: set[str]) -> None:
    """Remove the store files (results.sqlite and its -wal, -shm, -journal) that are in `directory`
    but not in `found`: called with the folder's lock held, they are the caller's own."""
    for name in folder_names(directory) - found:
        if name == DB_NAME or name.startswith(DB_NAME + "-"):
            with contextlib.suppress(OSError):
                (directory / name).unlink()
