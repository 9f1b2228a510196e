"""Hub loading through `datasets.load_dataset`, for machines that can reach the Hugging Face hub.

Without hub access the error says which local files would serve instead, because most machines
that run this benchmark have the data directory and no hub.
"""

from __future__ import annotations

import os
import socket
from collections import Counter
from urllib.parse import urlsplit

from oversight_bench.errors import BenchError
from oversight_bench.sources import Records


_OFFLINE = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


def unreachable_hub(timeout: float = 3.0) -> str | None:
    """Why the hub cannot be reached, found in seconds rather than after `datasets`' ~23 s of
    retries; None when it can, or when a proxy decides."""
    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None
    url = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host, port = url.hostname or "huggingface.co", url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return f"cannot reach {host}:{port} ({exc.strerror or type(exc).__name__})"
    return None


def hub_records(task, data_dir) -> Records:
    hub = task.config.source.hub
    try:
        offline = [v for v in _OFFLINE if os.environ.get(v, "").lower() in ("1", "true", "yes", "on")]
        if offline:  # checked here too: huggingface_hub reads these only when first imported
            raise ConnectionError(f"hub access is disabled by {offline[0]}")
        why = unreachable_hub()
        if why:
            raise ConnectionError(why)
        import datasets

        ds = datasets.load_dataset(hub.path, hub.name, split=hub.split)
    except Exception as exc:  # offline, unknown dataset, auth: all mean "use the local files"
        reason = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise BenchError(
            f"task {task.name}: cannot load hub dataset {hub.path}"
            f"{'/' + hub.name if hub.name else ''} split {hub.split} ({reason}); without hub access use the local "
            f"files {task.local_hint(data_dir)} (--data-dir or OVERSIGHT_BENCH_DATA)"
        ) from None
    rows, skipped = [], Counter()
    for i, row in enumerate(ds):
        if any(row.get(k) in vals for k, vals in hub.exclude_rows.items()):
            continue
        rows.append({**row, "_row": i})
    return Records(rows, skipped)
