"""The rows of a data file, by one rule for every format: what a cell reads as, which rows are
malformed (counted, dropped), and the public readers (`read_rows`, `read_many`, `read_csv_bytes`).

CSV, JSONL and Parquet files are parsed once into `arrow_cache`; this module decides with what
options and reads the rows back out of the Arrow tables.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

from oversight_bench import arrow_cache
from oversight_bench.errors import BenchError
from oversight_bench.sources import note_read, stat_key
from oversight_bench.yamlio import strict_json

csv.field_size_limit(sys.maxsize)  # QuALITY CSVs hold whole stories in one field


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


def _first_options(path: Path, fmt: str) -> dict[str, Any]:
    """The options a file is first parsed with (CSV: its header's names, pandas' fast reader)."""
    return _first_options_of(stat_key(path), fmt)


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
            target = arrow_cache.cache_file(path, fmt, options)
            if not target.is_file():
                groups.setdefault(target.name.split(".")[2], (options, []))[1].append(path)
        except Exception:
            continue
    for options, group in groups.values():
        if len(group) > 1:
            arrow_cache.convert(group, fmt, options)


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
    if arrow_cache.cache_file(path, "csv", lenient).is_file():
        table = arrow_cache.mapped(arrow_cache.cache_file(path, "csv", lenient))  # a file with too-long rows: its lenient parse
    else:
        try:
            table = arrow_cache.table(path, "csv", fast)
        except Exception as exc:
            if not _too_many_cells(exc):
                raise
            table = arrow_cache.table(path, "csv", lenient)
    return _split_malformed(table.to_pylist())


def _dataset_rows(path: Path, fmt: str) -> tuple[tuple, int]:
    if path.stat().st_size == 0:
        return (), 0
    if fmt == "csv":
        return _csv_rows(path)
    if fmt == "parquet":
        # the Arrow rows as stored: no decoding of image columns into PIL objects
        return tuple(arrow_cache.table(path, "parquet", {}).to_pylist()), 0
    try:
        table = arrow_cache.table(path, "jsonl", {})
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
        rows, bad = _read_cached(stat_key(path), fmt)
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
