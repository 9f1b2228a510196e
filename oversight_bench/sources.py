"""What task loaders share: the `Records` they return, the `LoadContext` they get, cached file readers.

A loader (hook `register_loaders`) is `fn(cfg, ctx) -> Records`; the YAML task engine
(`oversight_bench.yaml_task`) turns its rows into binary questions."""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import csv
import functools
import hashlib
import importlib
import io
import itertools
import json
import math
import os
import shutil
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError
from oversight_bench.yamlio import strict_json

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
            out[name] = _content_hash(_stat_key(path))
        except OSError as exc:
            out[name] = f"unreadable: {exc.strerror}"
    return out


def _stat_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


def datasets_cache_dir() -> Path:
    """Where `datasets` keeps its Arrow copies of the data files: `datasets/` under the cache root."""
    from oversight_bench.locations import cache_dir

    return cache_dir("datasets")


def content_sha256(path: Path) -> str:
    """sha256 of a file's content, hashed once per process while its size and mtime stay the same."""
    return _content_hash(_stat_key(Path(path)))


# -- CSV ------------------------------------------------------------------------------------------
# Every CSV file is parsed by pandas (through `datasets`' csv builder, which uses it; GPQA's bytes
# in memory by the csv module, `read_csv_bytes`, to the same rule), with every cell a string as written ("0.50" stays "0.50", "NA" stays "NA"). A row
# with too few cells gets missing cells; pandas' fast reader stops at a row with too many, so such
# a file is parsed again by its csv-module reader, which turns that row into missing cells too:
# the row stays in the (cached) table and is counted as malformed when read.
def _csv_options(names: list[str], lenient: bool) -> dict[str, Any]:
    return {"names": names, "header": 0, "index_col": False, "keep_default_na": False, "na_filter": False,
            "encoding": "utf-8-sig", **({"engine": "python", "on_bad_lines": malformed_csv_row} if lenient else
                                        {"engine": "c", "on_bad_lines": "error"})}


def malformed_csv_row(cells: list[str]) -> list:
    """A CSV row with more cells than the header: kept as a row of missing cells (counted, dropped)."""
    return [None]


def _too_many_cells(exc: BaseException) -> bool:
    reason = _reason(exc)
    return "Expected" in reason and "fields" in reason  # pandas: "Expected 6 fields in line 9, saw 7"


def _csv_header(path: Path) -> list[str] | None:
    with open(path, newline="", encoding="utf-8-sig") as f:
        names = next(csv.reader(f), None)
    _check_header(names, path)
    return names


def _check_header(names: list[str] | None, where: object) -> None:
    if names is not None and len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise BenchError(f"cannot read {where} as csv: column {dup!r} appears twice in the header; expected unique column names")


def _split_malformed(rows: list[dict]) -> tuple[tuple, int]:
    good = tuple(r for r in rows if all(v is not None for v in r.values()))
    return good, len(rows) - len(good)


# -- datasets -------------------------------------------------------------------------------------
# A CSV, JSONL or Parquet file is parsed once by `datasets`' packaged builder for its format (the
# code `load_dataset` runs: its `_split_generators`, then `_generate_tables` of each split, the two
# hooks every `datasets` builder implements), and its tables are written by `datasets`' ArrowWriter
# as one Arrow file in `datasets`' cache format, named by the file's content hash and the reading
# options. Every later read memory-maps that file, as `datasets` does its cache files, and a
# process that finds every file cached never imports `datasets`.
#
# What `load_dataset` adds around the builder is skipped: resolving the builder, hashing its
# config into a cache folder, locks, dataset_info.json, a Dataset per split and (formerly) a
# save_to_disk copy of it; on a cold cache that cost 1.5x the CPU of parsing the files by hand.
def _import_datasets():
    """`datasets`, imported. The import leaves some 100,000 objects that live as long as the
    process (the modules, classes and functions of pandas, pyarrow, huggingface_hub, fsspec...)
    for the cyclic garbage collector to scan again in every full collection: 0.15 s of CPU over a
    cold load of the nine tasks. Right after the import they are moved out of its reach
    (`gc.freeze`); like any object they are still freed when no longer referenced."""
    if "datasets" in sys.modules:
        return sys.modules["datasets"]
    import gc

    import datasets

    gc.freeze()
    return datasets


@contextlib.contextmanager
def _quiet_datasets():
    """`datasets`, imported on first use (about a second of CPU: pandas, pyarrow and
    huggingface_hub), with no progress bars or log lines (the command prints its own)."""
    datasets = _import_datasets()
    from datasets.utils import logging as ds_logging

    bars_off, level = datasets.utils.are_progress_bars_disabled(), ds_logging.get_verbosity()
    datasets.disable_progress_bars()
    ds_logging.set_verbosity(ds_logging.CRITICAL)
    try:
        yield datasets
    finally:
        ds_logging.set_verbosity(level)
        if not bars_off:
            datasets.enable_progress_bars()


@functools.lru_cache(maxsize=8)
def _writable(cache: Path) -> Path:
    """`cache`, or where it cannot be written (a read-only home), a folder for this process only:
    reading still works, and each process parses the files again."""
    try:
        cache.mkdir(parents=True, exist_ok=True)
        if os.access(cache, os.W_OK):
            return cache
    except OSError:
        pass
    tmp = Path(tempfile.mkdtemp(prefix="oversight-bench-datasets-"))
    atexit.register(shutil.rmtree, tmp, True)
    return tmp


def _cache_file(path: Path, fmt: str, options: dict[str, Any]) -> Path:
    """Where the file's Arrow copy is: its content hash, format and reading options in the name
    (a file rewritten with the same size and mtime is not read stale)."""
    spec = sorted((k, f"{v.__module__}.{v.__qualname__}" if callable(v) else repr(v)) for k, v in options.items())
    key = hashlib.sha256(repr(spec).encode()).hexdigest()[:12]
    return _writable(datasets_cache_dir()) / f"{content_sha256(path)}.{fmt}.{key}.arrow"


_BUILDERS = {"csv": ("csv", "Csv"), "jsonl": ("json", "Json"), "parquet": ("parquet", "Parquet")}
_PARTS = itertools.count()


def _convert(paths: list[Path], fmt: str, options: dict[str, Any]) -> dict[Path, Exception]:
    """Parse the files with one instance of `datasets`' builder for the format (one split per
    file) and write each file's tables to its `_cache_file`. Returns the files it could not parse
    and the error (as the builder raised it)."""
    failed: dict[Path, Exception] = {}
    with _quiet_datasets() as datasets, _one_arrow_thread(), \
            tempfile.TemporaryDirectory(prefix="oversight-bench-build-") as tmp:
        from datasets.arrow_writer import ArrowWriter, SchemaInferenceError
        from datasets.data_files import DataFilesDict, DataFilesList

        package, name = _BUILDERS[fmt]
        builder_cls = getattr(importlib.import_module(f"datasets.packaged_modules.{package}.{package}"), name)
        config = {**options}
        if fmt == "csv":  # every cell a string, as written
            config["features"] = datasets.Features({n: datasets.Value("string") for n in options["names"]})
        config_fields = getattr(builder_cls.BUILDER_CONFIG_CLASS, "__dataclass_fields__", {})
        if fmt == "jsonl" and "parse_agent_traces" in config_fields:
            config["parse_agent_traces"] = False  # rows as they are, whatever their keys
        # the files as resolved data files, one split each: from patterns, the builder would resolve
        # each file through fsspec and record its mtime (for a cache key this cache does not use),
        # in a thread pool of its own per file
        splits = {f"f{i}": p for i, p in enumerate(paths)}
        data_files = DataFilesDict({k: DataFilesList([str(p)], [()]) for k, p in splits.items()})
        builder = _builder(builder_cls, cache_dir=f"{tmp}/builder", data_files=data_files, **config)
        dl_manager = datasets.DownloadManager(dataset_name=builder.dataset_name, base_path=builder.base_path,
                                              download_config=datasets.DownloadConfig(cache_dir=f"{tmp}/downloads"))
        # JSON's features, when not given, are each file's own: as Arrow's JSON reader infers them
        # (`_jsonl_features`), else from its first table; not the first file's, which
        # `_split_generators` would infer (parsing it an extra time) and impose on the others
        infer = fmt == "jsonl" and builder.info.features is None
        try:
            if infer:
                builder.info.features = datasets.Features()
            generators = builder._split_generators(dl_manager)
        except Exception as exc:
            return {p: exc for p in paths}
        for split in generators:
            path = splits[str(split.name)]
            target = _cache_file(path, fmt, options)
            part = str(target.with_name(f".{target.name}.{os.getpid()}-{next(_PARTS)}"))  # renamed when whole
            try:
                if infer:
                    builder.info.features = _jsonl_features(path)
                writer = ArrowWriter(features=builder.info.features, path=part)
                try:
                    for _, table in builder._generate_tables(**split.gen_kwargs):
                        if builder.info.features is None:  # a long file's later chunks are cast to these
                            builder.info.features = datasets.Features.from_arrow_schema(table.schema)
                        writer.write_table(table)
                    writer.finalize()
                except SchemaInferenceError:  # no rows, and no features to give the schema
                    _write_empty(part)
                finally:
                    writer.close()
                os.replace(part, target)
            except Exception as exc:
                failed[path] = exc
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(part)
    return failed


_CONVERTING = threading.Lock()


@contextlib.contextmanager
def _one_arrow_thread():
    """pyarrow's CPU thread pool at one thread while files are converted (one conversion at a
    time), as it was afterwards. The builders parse with it: the JSON reader splits a file into
    blocks, and pandas' columns go to Arrow in a thread pool per file. For files of a few MB the
    threads mostly wait on each other and on the GIL: a process converting the nine tasks' files
    took 2.35 s of CPU instead of 2.57 s (medians of 10 alternating runs on 2 busy cores). A much
    larger file would parse in less wall time with more threads on an idle machine."""
    import pyarrow as pa

    with _CONVERTING:
        threads = pa.cpu_count()
        pa.set_cpu_count(1)
        try:
            yield
        finally:
            pa.set_cpu_count(threads)


def _jsonl_features(path: Path):
    """The features of a JSON-lines file as Arrow's JSON reader infers them (in C), or None where
    it cannot (a field whose type changes between rows): the builder then infers them itself.
    Without features, the builder first parses every line again in Python to look for objects
    whose keys differ between rows, which it would store as JSON text; with them it parses once,
    and such objects are one struct holding every key, the missing ones null. Rows read the same
    either way, since `_drop_none` drops a key whose value is null."""
    import pyarrow as pa
    import pyarrow.json as paj
    from datasets import Features

    try:
        size = path.stat().st_size
        table = paj.read_json(str(path), read_options=paj.ReadOptions(block_size=max(16 << 10, min(size + 1, 1 << 30))))
        return Features.from_arrow_schema(table.schema)
    except (pa.ArrowException, OSError, ValueError, TypeError):
        return None


def _builder(builder_cls, **kwargs):
    """An instance of a `datasets` builder for local files. Its constructor would first patch the
    builder's module so that it can stream remote files, importing scipy.io, xml and others on
    the way (about 0.1 s of CPU); the files here are local, so the module counts as patched
    while the builder is made, and is left as it was."""
    module = sys.modules[builder_cls.__module__]
    before = getattr(module, "_patched_for_streaming", None)
    if not before:
        module._patched_for_streaming = True
    try:
        return builder_cls(**kwargs)
    finally:
        if not before:
            module._patched_for_streaming = before


def _write_empty(target: str) -> None:
    import pyarrow as pa

    with pa.OSFile(target, "wb") as sink, pa.ipc.new_stream(sink, pa.schema([])):
        pass


def _table(path: Path, fmt: str, options: dict[str, Any]):
    """The file as a memory-mapped Arrow table, converted first when it is not in the cache."""
    target = _cache_file(path, fmt, options)
    if not target.is_file():
        failed = _convert([path], fmt, options)
        if path in failed:
            raise failed[path]
    return _mapped(target)


def _mapped(target: Path):
    """What `datasets`' MemoryMappedTable holds: the Arrow stream file, memory-mapped."""
    import pyarrow as pa

    return pa.ipc.open_stream(pa.memory_map(str(target))).read_all()


def _first_options(path: Path, fmt: str) -> dict[str, Any]:
    """The options a file is first parsed with (CSV: its header's names, pandas' fast reader)."""
    return _first_options_of(_stat_key(path), fmt)


@functools.lru_cache(maxsize=1024)
def _first_options_of(key: tuple[str, int, int], fmt: str) -> dict[str, Any]:
    path = Path(key[0])
    if fmt == "csv":
        names = _csv_header(path)
        if names is None:
            raise ValueError(f"{path} is empty")
        return _csv_options(names, False)
    return {}


def _prebuild(paths: list[Path], fmt: str) -> None:
    """Convert the files of one format that are not yet in the cache, one builder per set of
    options (MMLU's 56 CSVs: one, not 56). A file it cannot parse is left to `read_rows`, which
    parses it alone and reports or counts what is wrong."""
    groups: dict[str, tuple[dict, list[Path]]] = {}
    for path in paths:
        try:
            if path.stat().st_size == 0:
                continue
            options = _first_options(path, fmt)
            target = _cache_file(path, fmt, options)
            if not target.is_file():
                groups.setdefault(target.name.split(".")[2], (options, []))[1].append(path)
        except Exception:
            continue
    for options, group in groups.values():
        if len(group) > 1:
            _convert(group, fmt, options)


def _jsonl_lines(path: Path) -> tuple[tuple, int]:
    """Rows of a JSON-lines file that `datasets` rejected (its reader takes a file whole): the
    lines that are JSON objects, and how many are not."""
    rows, bad = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                row = strict_json(line)
            except ValueError:  # not JSON, or NaN / Infinity / 1e999 in it: malformed like any other
                bad += 1
                continue
            if isinstance(row, dict):
                rows.append(row)
            else:
                bad += 1
    return tuple(rows), bad


def _csv_rows(path: Path) -> tuple[tuple, int]:
    names = _csv_header(path)
    if names is None:
        return (), 0
    fast, lenient = _first_options(path, "csv"), _csv_options(names, True)
    if _cache_file(path, "csv", lenient).is_file():
        table = _mapped(_cache_file(path, "csv", lenient))  # a file with too-long rows: its lenient parse
    else:
        try:
            table = _table(path, "csv", fast)
        except Exception as exc:
            if not _too_many_cells(exc):
                raise
            table = _table(path, "csv", lenient)
    return _split_malformed(table.to_pylist())


def _dataset_rows(path: Path, fmt: str) -> tuple[tuple, int]:
    if path.stat().st_size == 0:
        return (), 0
    if fmt == "csv":
        return _csv_rows(path)
    if fmt == "parquet":
        # the Arrow rows as stored: no decoding of image columns into PIL objects
        return tuple(_table(path, "parquet", {}).to_pylist()), 0
    try:
        table = _table(path, "jsonl", {})
    except Exception:  # not JSON lines throughout: read line by line, counting the bad ones
        return _jsonl_lines(path)
    decode = {name: _json_decoder(table.schema.field(name).type) for name in table.column_names}
    decode = {k: f for k, f in decode.items() if f is not None}
    rows = table.to_pylist()
    if decode:
        rows = [{k: (decode[k](v) if k in decode else v) for k, v in r.items()} for r in rows]
    bad = 0
    if decode or "double" in str(table.schema) or "float" in str(table.schema):
        # Arrow reads NaN and Infinity, which the strict reader refuses: such a row is malformed
        kept = [r for r in rows if _finite(r)]
        rows, bad = kept, len(rows) - len(kept)
    return tuple(_drop_none(row) for row in rows), bad


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere in `value` (a row, its lists and mappings)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def _json_decoder(arrow_type):
    """For a column whose type holds `datasets`' Json feature (Arrow's `arrow.json` extension type:
    a JSONL field whose values mix types, stored as JSON text), what turns its values back into
    Python objects, as `datasets` does when it formats rows; None for a column without one."""
    import pyarrow as pa

    if isinstance(arrow_type, pa.BaseExtensionType):
        if arrow_type.extension_name == "arrow.json":
            return lambda v: None if v is None else json.loads(v)
        return None
    if pa.types.is_struct(arrow_type):
        fields = {arrow_type.field(i).name: _json_decoder(arrow_type.field(i).type) for i in range(arrow_type.num_fields)}
        fields = {k: f for k, f in fields.items() if f is not None}
        if not fields:
            return None
        return lambda v: None if v is None else {k: (fields[k](x) if k in fields else x) for k, x in v.items()}
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        item = _json_decoder(arrow_type.value_type)
        if item is None:
            return None
        return lambda v: None if v is None else [item(x) for x in v]
    return None


def _drop_none(value: Any) -> Any:
    """An Arrow table gives every row (and every object in a column) all the keys any has; the
    ones a JSON line did not have read as None and are dropped, so `.get(key, default)` works."""
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list) and value and not isinstance(value[0], str):
        return [_drop_none(v) for v in value]
    return value


@functools.lru_cache(maxsize=256)
def _read_cached(key: tuple[str, int, int], fmt: str) -> tuple:
    path = Path(key[0])
    if fmt in ("csv", "jsonl", "parquet"):
        return _dataset_rows(path, fmt)
    if fmt == "json":
        # one JSON document: a list of rows, or a mapping of id -> row (PrOntoQA's llm-reasoners
        # copy), which `datasets` does not read as rows
        data = strict_json(path.read_text(encoding="utf-8"))  # NaN anywhere: the file is not JSON
        if isinstance(data, dict):
            data = [{"_key": k, **v} if isinstance(v, dict) else {"_key": k, "value": v} for k, v in sorted(data.items())]
        return tuple(r for r in data if isinstance(r, dict)), sum(1 for r in data if not isinstance(r, dict))
    raise BenchError(f"{path}: unknown file format {fmt!r}; expected csv, jsonl, json or parquet")


def _reason(exc: BaseException) -> str:
    """The innermost cause of a `datasets` error, on one line."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]


def _format(path: Path, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    return {".csv": "csv", ".jsonl": "jsonl", ".json": "json", ".parquet": "parquet"}.get(Path(path).suffix, "jsonl")


def read_rows(path: Path, fmt: str = "auto") -> tuple[list[dict], int]:
    """Rows of a local file and how many were malformed (a CSV row with the wrong number of
    cells, a JSONL line that is not a JSON object). CSV, JSONL and Parquet are read through
    `datasets` (parsed once into an Arrow cache, then memory-mapped); a JSONL column that mixes
    integers and fractions reads as floats there, as Arrow columns have one type. A `.json` file
    is one document. Parsed once per process."""
    fmt = _format(path, fmt)
    note_read(path)
    try:
        rows, bad = _read_cached(_stat_key(path), fmt)
        return [dict(r) for r in rows], bad
    except BenchError:
        raise
    except (OSError, ValueError, csv.Error) as exc:  # ValueError: not UTF-8, not (strict) JSON
        raise BenchError(f"cannot read {path} as {fmt}: {exc}") from None
    except Exception as exc:  # datasets, pandas and pyarrow errors: a file they cannot parse
        raise BenchError(f"cannot read {path} as {fmt}: {_reason(exc)}") from None


def read_many(paths: list[Path], fmt: str = "auto") -> list[tuple[list[dict], int]]:
    """`read_rows` of each file; the ones `datasets` has not cached yet are parsed together."""
    fmts = [_format(p, fmt) for p in paths]
    for f in ("csv", "jsonl", "parquet"):
        _prebuild([p for p, pf in zip(paths, fmts) if pf == f], f)
    return [read_rows(p, pf) for p, pf in zip(paths, fmts)]


def read_csv_bytes(data: bytes, name: str = "CSV data") -> tuple[list[dict], int]:
    """Rows of a CSV held in memory (GPQA, decrypted and never written to disk, so never cached)
    and how many were malformed, by the rule files follow: every cell a string as written, a row
    with the wrong number of cells malformed, blank lines skipped. Parsed by the csv module,
    which for a few MB is as fast as pandas and spares a load that finds every file cached
    importing it (half a second). `name` says in an error what it is."""
    try:
        reader = csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""), strict=True)
        names = next(reader, None)
        if names is None:
            return [], 0
        _check_header(names, name)
        rows, bad = [], 0
        for cells in reader:
            if not cells:
                continue
            if len(cells) == len(names):
                rows.append(dict(zip(names, cells)))
            else:
                bad += 1
    except BenchError:
        raise
    except (UnicodeDecodeError, csv.Error) as exc:  # undecodable bytes, a quote never closed, ...
        raise BenchError(f"cannot read {name} as csv: {' '.join(str(exc).split())}") from None
    return rows, bad
