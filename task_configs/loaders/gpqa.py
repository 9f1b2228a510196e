"""GPQA (Rein et al. 2023) from its official password-protected zip, decrypted in memory only.

The authors ask that GPQA never appear in plain text online, so the CSV is never written to disk
or logged; every question is marked `meta["contains_gpqa"]` so run outputs can be flagged.
The password is the one published in the official README.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from collections import Counter
from pathlib import Path

from oversight_bench.api import BenchError
from task_configs.loaders.common import LoadContext, Records, content_sha256, read_csv_bytes

PASSWORD = b"deserted-untie-orchid"
SUBSETS = ("main", "diamond", "extended")


#: (zip sha256, subset) -> (rows, malformed rows)
_DECRYPTED: dict[tuple[str, str], tuple[tuple, int]] = {}


def _decrypt(path: Path, member: str) -> bytes:
    """The member's plain bytes, in memory. Python's zipfile decrypts ZipCrypto in pure Python
    (0.6 s of CPU for the main set); Info-ZIP's `unzip`, where installed, decrypts and checks it
    in C into a pipe (a few ms), never to disk. Anything it does not do cleanly is done again by
    zipfile, whose errors name what is wrong."""
    unzip = shutil.which("unzip")
    if unzip:
        try:
            done = subprocess.run([unzip, "-p", "-P", PASSWORD.decode(), str(path), member],
                                  capture_output=True, timeout=120, check=False)
            if done.returncode == 0 and done.stdout:
                return done.stdout
        except (OSError, subprocess.SubprocessError):
            pass
    with zipfile.ZipFile(path) as z:
        return z.read(member, pwd=PASSWORD)


def _rows(path: Path, subset: str) -> tuple[tuple, int]:
    # decrypt once per process per content, so gpqa and gpqa_extractive, which ship the same
    # zip in two folders, share one decryption
    key = (content_sha256(path), subset)
    if key not in _DECRYPTED:
        member = f"dataset/gpqa_{subset}.csv"
        data = _decrypt(path, member)
        rows, bad = read_csv_bytes(data, f"{path}:{member}")
        _DECRYPTED[key] = tuple(rows), bad
    return _DECRYPTED[key]


def load(cfg, ctx: LoadContext) -> Records:
    subset = cfg.options.get("subset", "main")
    if subset not in SUBSETS:
        raise BenchError(f"task {cfg.name}: options.subset must be one of {', '.join(SUBSETS)}, not {subset!r}")
    paths = ctx.glob(cfg.source.local.files)
    if not paths:
        raise BenchError(f"task {cfg.name}: {', '.join(cfg.source.local.files)} not found in {ctx.looked_in()}")
    path: Path = paths[0]
    try:
        rows, bad = _rows(path, subset)
    except (zipfile.BadZipFile, KeyError, RuntimeError) as exc:
        raise BenchError(f"task {cfg.name}: cannot open {path} ({type(exc).__name__}); expected the official GPQA dataset.zip") from None
    out = []
    for row in rows:
        r = dict(row)
        r["_meta"] = {"contains_gpqa": True, "do_not_publish": True, "gpqa_subset": subset}
        out.append(r)
    return Records(out, Counter(malformed_row=bad) if bad else Counter())
