"""What task loaders share: the `Records` they return, the `LoadContext` they get, the files they
read (`track_reads`, `note_read`) and those files' fingerprints.

A loader (hook `register_loaders`) is `fn(cfg, ctx) -> Records`; the YAML task engine
(`oversight_bench.yaml_task`) turns its rows into binary questions. The rows of a data file come
from `oversight_bench.data_files` (`read_rows`), which parses each file once into
`oversight_bench.arrow_cache`."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError

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
    """Where a task reads from: `source` is local, hub or generator. A task file's names are looked up
    in the data directory first, then in `task_dir` (the folder of the task's YAML: a task pack's
    package data), so a file the data directory names wins and a pack still runs without one."""

    task: str
    source: str
    data_dir: Path | None
    task_dir: Path | None = None

    def bases(self) -> list[Path]:
        return [b for b in (self.data_dir, self.task_dir) if b is not None]

    def looked_in(self) -> str:
        """Where names are looked up, in words (every loader error about a missing file says it)."""
        unset = "no data directory was given (pass --data-dir or set OVERSIGHT_BENCH_DATA)"
        if not self.data_dir:  # read after "not found in": never "not found in no data directory"
            return f"the task's folder {self.task_dir} ({unset})" if self.task_dir is not None else f"any folder: {unset}"
        where = [f"the data directory {self.data_dir}"]
        if self.task_dir is not None:
            where.append(f"the task's folder {self.task_dir}")
        return " and ".join(where)

    def path(self, rel: str) -> Path:
        """`rel` in the data directory, else in the task's folder where it is there (else where it would be)."""
        bases = self.bases()
        if not bases:
            raise BenchError(f"task {self.task}: no data directory; pass --data-dir or set OVERSIGHT_BENCH_DATA")
        return next((b / rel for b in bases if (b / rel).exists()), bases[0] / rel)

    def file(self, rel: str) -> Path:
        """`path(rel)` of a file the loader needs: one line naming the file and where it looked when it is nowhere."""
        path = self.path(rel)
        if not path.is_file():
            raise BenchError(f"task {self.task}: {rel} not found in {self.looked_in()}")
        return path

    def files(self, patterns: list[str], exclude: list[str] = ()) -> list[Path]:
        """`glob` of the files a loader needs: one line naming the patterns and where it looked when none match."""
        found = self.glob(patterns, exclude)
        if not found:
            raise BenchError(f"task {self.task}: no files match {', '.join(patterns)} in {self.looked_in()}")
        return found

    def glob(self, patterns: list[str], exclude: list[str] = ()) -> list[Path]:
        """Files matching the patterns, sorted (stable across machines): each pattern under the data
        dir, or, where it matches nothing there, under the task's folder."""
        bases = self.bases()
        if not bases:
            raise BenchError(f"task {self.task}: no data directory; pass --data-dir or set OVERSIGHT_BENCH_DATA")
        found: set[Path] = set()
        for pat in patterns:
            for base in bases:
                hits = {p.resolve() for p in base.glob(pat) if p.is_file()}
                if hits:
                    skip = {p.resolve() for ex in exclude for p in base.glob(ex)}
                    found |= hits - skip
                    break
        return sorted(found)


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


class CountDeferred(Exception):
    """Raised by a loader inside `counting_only` where counting its questions would first take slow
    work (GSM8KQA's programs not yet run in the sandbox); its text says what that work is, and
    `list tasks` shows it instead of a count rather than making a listing wait minutes."""


_COUNTING: contextvars.ContextVar[bool] = contextvars.ContextVar("oversight_bench_counting", default=False)


@contextlib.contextmanager
def counting_only():
    """A block that only counts questions (`list tasks`): a loader may raise `CountDeferred` instead
    of doing slow work it would otherwise do once and cache (a run does it, with a progress bar)."""
    token = _COUNTING.set(True)
    try:
        yield
    finally:
        _COUNTING.reset(token)


def is_counting() -> bool:
    return _COUNTING.get()


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


def file_fingerprints(paths, data_dir: Path | None, task_dir: Path | None = None) -> dict[str, str]:
    """name -> sha256 of the content of each file, named relative to the data dir when under it (or
    as `task:<name>` relative to the task's folder, a pack's own data): a copied or moved data dir or
    pack with the same files gives the same fingerprint, other files do not.
    Hashed once per process per file (about 0.3 s for every dataset the paper uses)."""
    base = Path(data_dir).resolve() if data_dir else None
    own = Path(task_dir).resolve() if task_dir else None
    out = {}
    for path in sorted(Path(p) for p in paths):
        if base is not None and path.is_relative_to(base):
            name = str(path.relative_to(base))
        elif own is not None and path.is_relative_to(own):
            name = f"task:{path.relative_to(own)}"
        else:
            name = str(path)
        try:
            out[name] = _content_hash(stat_key(path))
        except OSError as exc:
            out[name] = f"unreadable: {exc.strerror}"
    return out


def stat_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)



def content_sha256(path: Path) -> str:
    """sha256 of a file's content, hashed once per process while its size and mtime stay the same."""
    return _content_hash(stat_key(Path(path)))
