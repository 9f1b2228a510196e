"""GPQA (Rein et al. 2023) from its official password-protected zip, decrypted in memory only.

The authors ask that GPQA never appear in plain text online, so the CSV is never written to disk
or logged; every question is marked `meta["contains_gpqa"]` so run outputs can be flagged.
The password is the one published in the official README.
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path

from oversight_bench.api import BenchError
from task_configs.loaders.common import LoadContext, Records, read_csv_bytes

PASSWORD = b"deserted-untie-orchid"
SUBSETS = ("main", "diamond", "extended")


@functools.lru_cache(maxsize=8)
def _rows(zip_key: tuple[str, int, int], subset: str) -> tuple:
    # ZipCrypto in pure Python takes about a second: decrypt once per process
    with zipfile.ZipFile(zip_key[0]) as z:
        data = z.read(f"dataset/gpqa_{subset}.csv", pwd=PASSWORD)
    return tuple(read_csv_bytes(data))


def load(cfg, ctx: LoadContext) -> Records:
    subset = cfg.options.get("subset", "main")
    if subset not in SUBSETS:
        raise BenchError(f"task {cfg.name}: options.subset must be one of {', '.join(SUBSETS)}, not {subset!r}")
    paths = ctx.glob(cfg.source.local.files)
    if not paths:
        raise BenchError(f"task {cfg.name}: {', '.join(cfg.source.local.files)} not found under {ctx.data_dir}")
    path: Path = paths[0]
    st = path.stat()
    try:
        rows = _rows((str(path.resolve()), st.st_mtime_ns, st.st_size), subset)
    except (zipfile.BadZipFile, KeyError, RuntimeError) as exc:
        raise BenchError(f"task {cfg.name}: cannot open {path} ({type(exc).__name__}); expected the official GPQA dataset.zip") from None
    out = []
    for row in rows:
        r = dict(row)
        r["_meta"] = {"contains_gpqa": True, "gpqa_subset": subset}
        out.append(r)
    return Records(out)
