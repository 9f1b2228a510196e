"""Data files parsed once by `datasets`' packaged builders into Arrow files, memory-mapped after.

Only the parsing and the cache: which options a file is parsed with and what its rows mean
(malformed rows, CSV cells as written) are `data_files`' rules, kept apart so that a change of
either reads on its own.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib
import itertools
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from oversight_bench.sources import content_sha256


def datasets_cache_dir() -> Path:
    """Where `datasets` keeps its Arrow copies of the data files: `datasets/` under the cache root."""
    from oversight_bench.locations import cache_dir

    return cache_dir("datasets")


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


def cache_file(path: Path, fmt: str, options: dict[str, Any]) -> Path:
    """Where the file's Arrow copy is: its content hash, format and reading options in the name
    (a file rewritten with the same size and mtime is not read stale)."""
    spec = sorted((k, f"{v.__module__}.{v.__qualname__}" if callable(v) else repr(v)) for k, v in options.items())
    key = hashlib.sha256(repr(spec).encode()).hexdigest()[:12]
    return _writable(datasets_cache_dir()) / f"{content_sha256(path)}.{fmt}.{key}.arrow"


_BUILDERS = {"csv": ("csv", "Csv"), "jsonl": ("json", "Json"), "parquet": ("parquet", "Parquet")}
_PARTS = itertools.count()


def convert(paths: list[Path], fmt: str, options: dict[str, Any]) -> dict[Path, Exception]:
    """Parse the files with one instance of `datasets`' builder for the format (one split per
    file) and write each file's tables to its `cache_file`. Returns the files it could not parse
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
            target = cache_file(path, fmt, options)
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


def table(path: Path, fmt: str, options: dict[str, Any]):
    """The file as a memory-mapped Arrow table, converted first when it is not in the cache."""
    target = cache_file(path, fmt, options)
    if not target.is_file():
        failed = convert([path], fmt, options)
        if path in failed:
            raise failed[path]
    return mapped(target)


def mapped(target: Path):
    """What `datasets`' MemoryMappedTable holds: the Arrow stream file, memory-mapped."""
    import pyarrow as pa

    return pa.ipc.open_stream(pa.memory_map(str(target))).read_all()

