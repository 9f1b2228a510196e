"""What task loaders share: the `Records` they return, the `LoadContext` they get, cached file readers.

A loader (hook `register_loaders`) is `fn(cfg, ctx) -> Records`; the YAML task engine
(`oversight_bench.yaml_task`) turns its rows into binary questions."""

from __future__ import annotations

import contextlib
import contextvars
import csv
import functools
import hashlib
import io
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError

csv.field_size_limit(sys.maxsize)  # QuALITY CSVs hold whole stories in one field


@dataclass
class Records:
    """Rows from a source, plus rows the loader itself had to drop (reason -> count)."""

    rows: list[dict[str, Any]]
    skipped: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    #: what the task's `substitution` text is filled with (counts), and `case`: which of its texts
    #: applies when the loader chose among sources (e.g. QuALITY's T_L split or its fallback subsets)
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass
class LoadContext:
    """Where a task reads from: `source` is local, hub or generator."""

    task: str
    source: str
    data_dir: Path | None

    def path(self, rel: str) -> Path:
        if self.data_dir is None:
            raise BenchError(f"task {self.task}: no data directory; pass --data-dir or set OVERSIGHT_BENCH_DATA")
        return self.data_dir / rel

    def glob(self, patterns: list[str], exclude: list[str] = ()) -> list[Path]:
        """Files matching the patterns under the data dir, sorted (stable across machines)."""
        base = self.path(".")
        skip = {p.resolve() for pat in exclude for p in base.glob(pat)}
        found = {p.resolve() for pat in patterns for p in base.glob(pat) if p.is_file()}
        return sorted(found - skip)


#: the data files read while `track_reads` is active (a set of resolved paths)
_READS: contextvars.ContextVar[set | None] = contextvars.ContextVar("oversight_bench_reads", default=None)


@contextlib.contextmanager
def track_reads():
    """Collect the data files read inside the block (by `read_rows`, or `note_read` for a loader
    that opens files itself): the run's identity fingerprints them (`file_fingerprints`)."""
    seen: set[Path] = set()
    token = _READS.set(seen)
    try:
        yield seen
    finally:
        _READS.reset(token)


def note_read(path: Path) -> None:
    seen = _READS.get()
    if seen is not None:
        seen.add(Path(path).resolve())


@functools.lru_cache(maxsize=1024)
def _content_hash(key: tuple[str, int, int]) -> str:
    h = hashlib.sha256()
    with open(key[0], "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_fingerprints(paths, data_dir: Path | None) -> dict[str, str]:
    """name -> sha256 of the content of each file, named relative to the data dir when under it:
    a copied or moved data dir with the same files gives the same fingerprint, other files do not.
    Hashed once per process per file (about 0.3 s for every dataset the paper uses)."""
    base = Path(data_dir).resolve() if data_dir else None
    out = {}
    for path in sorted(Path(p) for p in paths):
        name = str(path.relative_to(base)) if base is not None and path.is_relative_to(base) else str(path)
        try:
            out[name] = _content_hash(_stat_key(path))
        except OSError as exc:
            out[name] = f"unreadable: {exc.strerror}"
    return out


def _stat_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=256)
def _read_cached(key: tuple[str, int, int], fmt: str) -> tuple:
    path = Path(key[0])
    if fmt == "csv":
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = tuple(csv.DictReader(f))
        bad = sum(1 for r in rows if None in r or any(v is None for v in r.values()))
        return tuple(r for r in rows if None not in r and all(v is not None for v in r.values())), bad
    if fmt == "jsonl":
        rows, bad = [], 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    bad += 1
                    continue
                if isinstance(row, dict):
                    rows.append(row)
                else:
                    bad += 1
        return tuple(rows), bad
    if fmt == "json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            data = [{"_key": k, **v} if isinstance(v, dict) else {"_key": k, "value": v} for k, v in sorted(data.items())]
        return tuple(r for r in data if isinstance(r, dict)), sum(1 for r in data if not isinstance(r, dict))
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return tuple(pq.read_table(path).to_pylist()), 0
    raise BenchError(f"{path}: unknown file format {fmt!r}; expected csv, jsonl, json or parquet")


def read_rows(path: Path, fmt: str = "auto") -> tuple[list[dict], int]:
    """Rows of a local file and how many were malformed (a CSV row with the wrong number of
    cells, a JSONL line that is not a JSON object), parsed once per process."""
    if fmt == "auto":
        fmt = {".csv": "csv", ".jsonl": "jsonl", ".json": "json", ".parquet": "parquet"}.get(path.suffix, "jsonl")
    note_read(path)
    try:
        rows, bad = _read_cached(_stat_key(path), fmt)
        return [dict(r) for r in rows], bad
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, csv.Error) as exc:
        raise BenchError(f"cannot read {path} as {fmt}: {exc}") from None


def read_csv_bytes(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
