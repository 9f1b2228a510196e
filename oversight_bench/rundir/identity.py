"""A run's identity: the settings a resumed run must share with the run it continues, recorded in
the store (and config.json), and the checks a start makes against them before it writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError
from oversight_bench.rundir import legacy
from oversight_bench.rundir.store import Store

#: the stored settings a resumed run must share with the run it continues
IDENTITY_KEYS = ("kind", "judge", "judge_debias", "agent", "seed", "tasks", "protocols", "options", "source")
#: compared too where a plan stores them (cross-play's players)
OPTIONAL_IDENTITY_KEYS = ("debaters",)


def identity_of(config: dict[str, Any], data: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the store records as the run's identity: the settings a resume must share
    (`IDENTITY_KEYS`), the YAML tasks' versions and the data files each task read."""
    ident = {k: config.get(k) for k in IDENTITY_KEYS}
    ident.update({k: config[k] for k in (*OPTIONAL_IDENTITY_KEYS, "task_versions") if k in config})
    if data is not None:
        ident["data"] = data
    return ident


def check_identity(store: Store, config: dict[str, Any]) -> dict[str, Any]:
    """The stored config of a run being resumed ({} for a new one), refused if its settings differ
    from the identity recorded in the store (and from config.json, where there is one) or one of
    its YAML tasks changed (version or resolved YAML)."""
    old = store.read_config()
    if old is not None:
        legacy.check_resumable(store.dir, old)
    recorded = store.read_identity()
    if recorded is None and old is None:
        legacy.check_unchecked_work(store.dir, store.holds_work())
        return {}
    for prev, where in ((recorded, "recorded in its store"), (old, "in its config.json")):
        if prev is not None:
            _compare(store.dir, prev, config, where)
    return old or {}


def _compare(directory: Path, old: dict[str, Any], config: dict[str, Any], where: str) -> None:
    from oversight_bench.protocol_options import same_options

    for key in (*IDENTITY_KEYS, *(k for k in OPTIONAL_IDENTITY_KEYS if k in old or k in config)):
        if key == "options" and isinstance(old.get(key), dict) and isinstance(config.get(key), dict):
            if same_options(old[key], config[key]):
                continue
        if old.get(key) != config.get(key):
            raise BenchError(
                f"{directory} already holds a run with a different {key} ({old.get(key)!r} {where}, now {config.get(key)!r}); "
                f"use the same settings to resume, or another --output (with --cache-from {directory} to reuse its stored "
                f"model calls)"
            )
    before, now = old.get("task_versions") or {}, config.get("task_versions") or {}
    for name, fp in now.items():
        was = before.get(name)
        if was is not None and was != fp:
            raise BenchError(
                f"task {name} changed since {directory} was started (version {was.get('version')!r} -> {fp.get('version')!r}, "
                f"YAML hash {was.get('sha256')} -> {fp.get('sha256')}); restore the task YAML, or use another --output"
            )


def check_data(store: Store, data: dict[str, dict[str, str]]) -> None:
    """Refuse a resume whose tasks read other data than the run was started with (another
    --data-dir, or changed files): its new questions would mix with the old ones. A run whose
    identity holds no data fingerprint (a new run, or an import) is held to nothing."""
    recorded = (store.read_identity() or {}).get("data")
    if not isinstance(recorded, dict):
        return
    for task in sorted(set(recorded) | set(data)):
        was, now = recorded.get(task) or {}, data.get(task) or {}
        if was == now:
            continue
        name = next(n for n in sorted(set(was) | set(now)) if was.get(n) != now.get(n))
        if name not in now:
            detail = f"{name} is no longer read"
        elif name not in was:
            detail = f"{name} is read now but was not"
        else:
            detail = f"{name} has other content (sha256 {str(was[name])[:12]}... -> {str(now[name])[:12]}...)"
        raise BenchError(f"task {task} reads other data than {store.dir} was started with ({detail}); resume with the "
                         f"same --data-dir and data files, or use another --output")
