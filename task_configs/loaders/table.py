"""The generic loader: rows of local CSV/JSONL/JSON/Parquet files, as they are.

Each row gains `_file` (the file's stem, e.g. an MMLU subject) so a YAML can use it in an id
template or as meta. A contributor whose data is a plain table needs only a YAML file.
"""

from __future__ import annotations

from collections import Counter

from oversight_bench.api import BenchError
from task_configs.loaders.common import LoadContext, Records, read_many


def load(cfg, ctx: LoadContext) -> Records:
    local = cfg.source.local
    if local is None:
        raise BenchError(f"task {cfg.name}: the table loader needs source.local (files under the data directory "
                         f"or the task's folder)")
    paths = ctx.glob(local.files, local.exclude)
    if not paths:
        raise BenchError(f"task {cfg.name}: no files match {', '.join(local.files)} in {ctx.looked_in()}")
    rows, skipped = [], Counter()
    for path, (file_rows, bad) in zip(paths, read_many(paths, local.format)):
        if bad:
            skipped["malformed_row"] += bad
        for i, row in enumerate(file_rows):
            row["_file"] = path.stem
            row["_row"] = i
            rows.append(row)
    return Records(rows, skipped)
