"""A run in progress, live in `oversight-bench view`: the index the pages answer from is rebuilt in
the background when a run directory it shows changes, and swapped in once built.

Why a rebuild and not an update: the viewer reads a store in progress from a private snapshot (the
store and its write-ahead log copied, `connect_readonly`), never the live files, so new records
come only with a new snapshot. Why swapped with a count of users: closing a store under a running
query crashes the process, so the old index is closed once the last page reading it is done.
Pages of a run in progress say so and reload themselves (a `<meta>` refresh: the pages run no script).
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from oversight_bench.api import in_use, store_files

if TYPE_CHECKING:
    from human_judging.viewer import Index

#: seconds between looks at the run directories' files
CHECK_S = 2.0
#: seconds between two rebuilds at least (a rebuild copies an in-progress store)
MIN_REBUILD_S = 5.0
#: seconds a page of a run in progress waits before it reloads itself
REFRESH_S = 10


def stamp(dirs: list[Path]) -> tuple:
    """What changes when a writer commits: each store's and write-ahead log's size and time."""
    out = []
    for d in dirs:
        for path in store_files(d):
            try:
                st = path.stat()
                out.append((st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
    return tuple(out)


class LiveIndex:
    """The current index of a `view` app, rebuilt when its runs change."""

    def __init__(self, index: "Index"):
        self.index = index
        self.check_s, self.min_rebuild_s = CHECK_S, MIN_REBUILD_S
        self._lock = threading.Lock()
        self._users: dict[int, int] = {}
        self._retired: list["Index"] = []
        self._stamp = stamp(index.dirs)
        self._checked = self._rebuilt = time.monotonic()
        self.rebuilder: threading.Thread | None = None
        self.built_at = time.time()
        self.error: BaseException | None = None

    def in_progress(self) -> bool:
        """Whether a writer holds one of the runs now (its records are still coming)."""
        return any(in_use(d) for d in self.index.dirs)

    @contextlib.contextmanager
    def use(self) -> Iterator["Index"]:
        """The current index, kept open while the block reads it."""
        with self._lock:
            index = self.index
            self._users[id(index)] = self._users.get(id(index), 0) + 1
        try:
            yield index
        finally:
            with self._lock:
                self._users[id(index)] -= 1
                done = [old for old in self._retired if not self._users.get(id(old))]
                self._retired = [old for old in self._retired if old not in done]
            for old in done:
                old.close()

    def poll(self) -> None:
        """Start a rebuild where a run changed since the last build (at most every `check_s` seconds
        looked at, every `min_rebuild_s` rebuilt; one rebuild at a time)."""
        now = time.monotonic()
        if now - self._checked < self.check_s or (self.rebuilder is not None and self.rebuilder.is_alive()):
            return
        self._checked = now
        current = stamp(self.index.dirs)
        if current == self._stamp or now - self._rebuilt < self.min_rebuild_s or not self.index.ready.is_set():
            return
        self._rebuilt = now
        self.rebuilder = threading.Thread(target=self._rebuild, args=(current,), name="oversight-bench-view-rebuild",
                                          daemon=True)
        self.rebuilder.start()

    def _rebuild(self, seen: tuple) -> None:
        try:  # the list's index and the full text, from fresh snapshots, as the index's own class builds them
            new = type(self.index)(self.index.dirs)
        except BaseException as exc:  # noqa: BLE001 - the pages keep answering from the last index
            self.error = exc
            return
        with self._lock:
            old, self.index = self.index, new
            self._stamp, self.built_at, self.error = seen, time.time(), None  # changes during the build: next poll
            busy = bool(self._users.get(id(old)))
            if busy:
                self._retired.append(old)
        if not busy:
            old.close()

    def close(self) -> None:
        if self.rebuilder is not None:
            self.rebuilder.join()
        with self._lock:
            for index in {id(i): i for i in (*self._retired, self.index)}.values():
                index.close()
            self._retired = []
