"""What `oversight-bench salvage DIR --output NEW` does (the command itself is in `cli`): copy every
readable record of a damaged run into a fresh run directory, which `run` (or `report`, `judge --from`,
...) then uses like any other.

A damaged `results.sqlite` (a disk error, a copy cut short, a file overwritten) is refused by
every command (`Store.open` runs `PRAGMA quick_check`). Salvage reads it with no such check, table
by table in rowid order; where a page cannot be read it seeks past it and goes on. Kept: every
call (the cache, so a resume does not pay for them again), every question, every skipped-row
count, and the turns and decision of every job whose decision and turns 0..n all read back (a
partial job is left out: the resume redoes it whole). Rows whose JSON does not parse, or holds NaN
or an infinity (`yamlio.strict_json`, as every reader reads them), or whose fields are not what their
kind's hold (`schema`: a probability 'yes', a turn without a speaker), are left out. config.json is
copied when it parses, so the resume's settings check still applies. The damaged run is opened
read-only as every reader opens a store (`connect.connect_readonly`): nothing is written into it.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

from oversight_bench.errors import BenchError
from oversight_bench.rundir import schema
from oversight_bench.rundir.names import CONFIG_NAME, DB_NAME
from oversight_bench.rundir.rows import RECORD_COLUMNS, RECORD_NAME_FIELDS, question_from_dict, read_config_file
from oversight_bench.rundir.folders import refuse_output_inside
from oversight_bench.rundir.store import Store, connect_readonly
from oversight_bench.yamlio import strict_json

#: columns copied per table, in the order of the store's schema
COLUMNS = {
    "calls": ("key", "model", "role", "tag", "protocol", "task", "question_id", "assignment", "answer_order", "request",
              "response", "prompt_tokens", "completion_tokens", "latency_s", "attempts", "created"),
    "records": ("kind", "job_key", "seq", "judge", "agent", "protocol", "task", "question_id", "assignment",
                "answer_order", "round", "data", "created"),
    "questions": ("task", "question_id", "data"),
    "skipped": ("task", "reason", "count"),
    "meta": ("key", "value"),  # the run's identity (store format 2; a v1 run has no such table)
}
#: which columns must hold JSON
JSON_COLUMNS = {"calls": ("request", "response"), "records": ("data",), "questions": ("data",), "meta": ("value",)}
#: consecutive unreadable probes before a table is given up (the seek step doubles each time)
MAX_PROBES = 64


def _read_table(conn: sqlite3.Connection, table: str, counts: dict[str, Any]) -> Iterator[tuple]:
    """Readable rows of `table` in rowid order, skipping over pages that cannot be read."""
    cols = ", ".join(COLUMNS[table])
    last, step, failures = None, 1, 0
    while failures < MAX_PROBES:
        where, args = ("WHERE rowid > ?", (last,)) if last is not None else ("", ())
        try:
            for row in conn.execute(f"SELECT rowid, {cols} FROM {table} {where} ORDER BY rowid", args):
                last, step, failures = row[0], 1, 0
                yield row[1:]
            return
        except sqlite3.DatabaseError as exc:
            counts["errors"].append(f"{table} after rowid {last}: {exc}")
            failures += 1
            if failures == 1 and last is None:
                # not even the first row: try the table at all (a missing table ends here)
                try:
                    conn.execute(f"SELECT 1 FROM {table} LIMIT 0").fetchall()
                except sqlite3.DatabaseError:
                    return
            last = (last if last is not None else 0) + step
            step *= 2


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    try:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone() is not None
    except sqlite3.DatabaseError:
        return True  # an unreadable schema: let the table read say what it can


def _readable(table: str, row: tuple) -> bool:
    """Whether a row reads as every reader reads it: its JSON strict, and its fields what its kind's
    hold (`schema`; a record's naming columns text) -- a row that would stop a reader is left out."""
    d = dict(zip(COLUMNS[table], row))
    if any(not schema.eval_column(d[c], allowed) for c, allowed in schema.COLUMNS.get(table, {}).items()):
        return False
    for col in JSON_COLUMNS.get(table, ()):
        try:
            d[col] = strict_json(d[col])
        except ValueError:
            return False
    if table == "records":
        if not isinstance(d["data"], dict) or d["kind"] not in ("turn", "decision"):
            return False
        if any(not isinstance(d[c], str) or not d[c] for c in RECORD_NAME_FIELDS):
            return False
        return schema.check(d["kind"], {**{c: d[c] for c in RECORD_COLUMNS}, **d["data"], "seq": d["seq"]}) is None
    if table == "calls":
        return schema.check("call", d) is None
    if table == "questions":
        if schema.check("question", d["data"]) is not None or not isinstance(d["task"], str) or not isinstance(d["question_id"], str):
            return False
        try:
            question_from_dict(d["data"])  # its images' base64 too
        except (KeyError, TypeError, ValueError, AttributeError):
            return False
    return True


def salvage_run(source: str | Path, output: str | Path) -> dict[str, Any]:
    """Copy the readable records of `source` into the new run directory `output`; return counts."""
    source, output = Path(source), Path(output)
    db = source / DB_NAME
    if not db.is_file():
        raise BenchError(f"{source} is not a run directory: expected {db}")
    refuse_output_inside(output, [source], "salvage")
    if output.exists() and (not output.is_dir() or any(output.iterdir())):
        raise BenchError(f"--output {output} exists and is not empty; expected a new folder for the salvaged run")
    counts: dict[str, Any] = {"errors": []}
    try:
        src = connect_readonly(source)
        # without it SQLite refuses a file shorter than its header says (a copy cut short) outright
        src.execute("PRAGMA writable_schema=ON")
    except (sqlite3.Error, BenchError) as exc:
        raise BenchError(f"{db}: cannot open it at all ({exc}); nothing to salvage") from None
    rows: dict[str, list[tuple]] = {}
    try:
        for table in COLUMNS:
            if not _has_table(src, table):  # missing, or a view standing in for it (a recursive one never ends)
                if table != "meta":
                    counts["errors"].append(f"{table}: no such table (or not a table) in the store")
                rows[table] = []
                continue
            kept = [r for r in _read_table(src, table, counts) if _readable(table, r)]
            rows[table] = kept
    finally:
        src.close()

    # whole jobs only: a decision and its turns 0..n, all readable
    recs = rows.pop("records")
    by_job: dict[tuple, list[tuple]] = defaultdict(list)
    idx = {c: i for i, c in enumerate(COLUMNS["records"])}
    for r in recs:
        by_job[(r[idx["job_key"]], r[idx["judge"]])].append(r)
    whole = []
    for job_rows in by_job.values():
        seqs = sorted(r[idx["seq"]] for r in job_rows if r[idx["kind"]] == "turn")
        if any(r[idx["kind"]] == "decision" for r in job_rows) and seqs == list(range(len(seqs))):
            whole.extend(job_rows)
    counts.update(calls=len(rows["calls"]), questions=len(rows["questions"]),
                  jobs=sum(1 for r in whole if r[idx["kind"]] == "decision"),
                  partial_jobs_dropped=len(by_job) - sum(1 for r in whole if r[idx["kind"]] == "decision"))

    config = None
    try:
        config = read_config_file(source)
    except BenchError as exc:
        counts["errors"].append(f"{CONFIG_NAME}: {exc}")
    counts["config"] = config is not None

    store = Store.open(output, write=True)
    try:
        with store.conn:
            store.conn.execute("BEGIN IMMEDIATE")
            for table, table_rows in (("questions", rows["questions"]), ("calls", rows["calls"]),
                                      ("skipped", rows["skipped"]), ("meta", rows["meta"]), ("records", whole)):
                cols = COLUMNS[table]
                store.conn.executemany(f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES "
                                       f"({', '.join('?' * len(cols))})", table_rows)
        if config is not None:
            store.write_config(config)
    finally:
        store.close()
    return counts
