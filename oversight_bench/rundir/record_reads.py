"""Reading a store's records whole (`RecordReads`), shared by the one reader (`reader.RunReader`) and
the writer (`store.Store`: a resume's checks, the end-of-run summary and files)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

from oversight_bench.rundir import records
from oversight_bench.rundir.legacy import redacted_config
from oversight_bench.rundir.rows import load_call, load_question, read_config_file, read_record
from oversight_bench.rundir.store_errors import store_errors


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
