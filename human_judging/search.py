"""Full-text search for `oversight-bench view`: every room's arguments, the judges' raw outputs and
the passages of its question, in an in-memory SQLite FTS5 index.

Why in memory: the viewer never writes into a run (nor beside it), and a run read-only must stay
searchable, so the index is built from the read-only stores when `view` starts (in the background,
after the room list's index) and lives as long as the process. Until it is ready, the free-text
filter searches what the list index holds (question, id, job key), and the page says so.

Why FTS5: a substring scan over the text of 100,000 rooms (hundreds of MB) would take seconds per
query; FTS5 answers a word or phrase query from its inverted index in milliseconds. The query is
searched as a phrase (each word a token, prefix-matched at the end), so no FTS syntax is exposed
and no input is an error.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from human_judging.viewer import Index

_WORD = re.compile(r"\w+", re.UNICODE)


def phrase(text: str) -> str | None:
    """The FTS5 query of free text: its words as one phrase, the last one a prefix (None: no word)."""
    words = _WORD.findall(text)
    if not words:
        return None
    return '"' + " ".join(words) + '"*'


class FullText:
    """Room and passage texts of an `Index`, searchable once `ready` is set."""

    def __init__(self, room_id: Callable[[str, str], str]) -> None:
        #: a room's id from its job key and agent (the viewer's rule, handed in: this module imports no viewer)
        self.room_id = room_id
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        self.conn.execute("CREATE VIRTUAL TABLE texts USING fts5(body, ref UNINDEXED, tokenize='unicode61')")
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.rows = 0

    def build(self, index: "Index") -> None:
        """Index every room's texts (ref "r:ROOM") and every question's passage (ref "q:TASK\\0ID")."""
        from oversight_bench.api import RunReader

        started = time.perf_counter()
        try:
            with self.lock:
                for directory in index.dirs:
                    run = RunReader(directory)  # its own connection: the pages read the index's meanwhile
                    try:
                        self._add(run, self.room_id)
                    finally:
                        run.close()
                self.conn.commit()
                self.rows = self.conn.execute("SELECT COUNT(*) FROM texts").fetchone()[0]
        except BaseException as exc:  # noqa: BLE001 - kept; the list falls back to the short fields
            self.error = exc
        finally:
            self.seconds = time.perf_counter() - started
            self.ready.set()

    def _add(self, run, room_id) -> None:
        """One run's rooms and passages (a room in several runs is indexed once per run: same ref)."""
        insert = "INSERT INTO texts (body, ref) VALUES (?, ?)"
        self.conn.executemany(insert, ((text or "", f"r:{room_id(job_key, agent or '')}")
                                       for job_key, agent, text in run.room_texts()))
        self.conn.executemany(insert, ((article or "", f"q:{task}\0{qid}") for task, qid, article in run.article_texts()))

    def search(self, text: str) -> tuple[set[str], set[tuple[str, str]]] | None:
        """(room ids, (task, question_id) whose passage matches) of a free-text query; None: not ready."""
        if not self.ready.is_set() or self.error is not None:
            return None
        query = phrase(text)
        if query is None:
            return set(), set()
        with self.lock:
            refs = [r for (r,) in self.conn.execute("SELECT ref FROM texts WHERE texts MATCH ?", (query,))]
        rooms = {r[2:] for r in refs if r.startswith("r:")}
        questions = {tuple(r[2:].split("\0", 1)) for r in refs if r.startswith("q:")}
        return rooms, questions

    def close(self) -> None:
        with self.lock:
            self.conn.close()
