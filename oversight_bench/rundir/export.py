"""`oversight-bench export`: every record of a run directory as JSONL."""

from __future__ import annotations

import json
from typing import Callable

from oversight_bench.rundir import legacy
from oversight_bench.rundir.reader import RunReader


def export_jsonl(directory: str, write: Callable[[str], None]) -> int:
    """Every record of a run as JSONL (kind = call | turn | decision), secrets redacted; returns the count."""
    write = legacy.redacted_lines(write)
    n = 0
    with RunReader(directory, check_pages=True) as store:
        identity = store.identity()
        for call in store.calls(keep=True):
            write(json.dumps({**call.stored(), "judge": identity.judge, "agent": identity.agent}, ensure_ascii=False))
            n += 1
        for rec in store.records(keep=True):
            write(json.dumps(rec.stored(), ensure_ascii=False))
            n += 1
    return n
