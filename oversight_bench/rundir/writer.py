"""The background writer of a run in progress (`BackgroundWriter`): the event loop hands it the
writes of each loop pass, and it commits them in groups, in order, one transaction a group; and the
filter that spares most cache lookups a query (`KeyFilter`)."""

from __future__ import annotations

import hashlib
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from oversight_bench.rundir.store_errors import BUSY_TIMEOUT_S

#: writes handed to the store's writer at once, at most
BOX_WRITES = 64

INSERT_CALL = ("INSERT OR IGNORE INTO calls (key, model, role, tag, protocol, task, question_id, assignment, answer_order,"
                " request, response, prompt_tokens, completion_tokens, latency_s, attempts, created)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
INSERT_QUESTION = "INSERT OR IGNORE INTO questions VALUES (?,?,?)"
INSERT_RECORD = ("INSERT OR IGNORE INTO records (kind, job_key, seq, judge, agent, protocol, task, question_id,"
                  " assignment, answer_order, round, data, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")


class KeyFilter:
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


class BackgroundWriter(threading.Thread):
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
            self.conn.executemany(INSERT_QUESTION, [r for kind, rows in items if kind == "questions" for r in rows])
            self.conn.executemany(INSERT_CALL, [rows for kind, rows in items if kind == "call"])
            self.conn.executemany(INSERT_RECORD, [r for kind, rows in items if kind == "job" for r in rows])
