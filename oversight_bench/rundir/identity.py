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
#: the keys that hold model names: compared without the models' execution settings (`identity_spec`)
MODEL_KEYS = ("judge", "agent")  # (cross-play plans its games by its debaters' names: those stay exact)


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
        if key in MODEL_KEYS and same_models(old.get(key), config.get(key)):
            continue
        if old.get(key) != config.get(key):
            raise BenchError(
                f"{directory} already holds a run with a different {key}{_which(key, old.get(key), config.get(key))} "
                f"({old.get(key)!r} {where}, now {config.get(key)!r}); use the same settings to resume, or another --output "
                f"(with --cache-from {directory} to reuse its stored model calls)"
            )
    before, now = old.get("task_versions") or {}, config.get("task_versions") or {}
    for name, fp in now.items():
        was = before.get(name)
        if was is not None and was != fp:
            raise BenchError(
                f"task {name} changed since {directory} was started (version {was.get('version')!r} -> {fp.get('version')!r}, "
                f"YAML hash {was.get('sha256')} -> {fp.get('sha256')}); restore the task YAML, or use another --output"
            )


def same_models(old: Any, new: Any) -> bool:
    """Whether two model names (or lists of them) name the same models: equal but for execution
    settings (calls in flight, timeouts, retries, rate limits, further replicas), which change no
    output."""
    from oversight_bench.models import identity_spec

    if isinstance(old, str) and isinstance(new, str):
        return old == new or identity_spec(old) == identity_spec(new)
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return all(same_models(a, b) for a, b in zip(old, new))
    return old == new


def _which(key: str, old: Any, new: Any) -> str:
    """For two names of one backend's model: which options that change a request differ (" (option
    top_p)"); the execution settings, which may differ, are not named."""
    from oversight_bench.models import identity_spec, parse_spec

    if key not in MODEL_KEYS or not isinstance(old, str) or not isinstance(new, str):
        return ""
    try:
        a, b = parse_spec(identity_spec(old)), parse_spec(identity_spec(new))
    except BenchError:
        return ""
    if (a.backend, a.model) != (b.backend, b.model):
        return ""
    names = sorted(k for k in set(a.options) | set(b.options) if a.options.get(k) != b.options.get(k))
    return f" (option{'s' if len(names) > 1 else ''} {', '.join(names)})" if names else ""


def keep_names(store: Store, config: dict[str, Any]) -> list[str]:
    """A resume whose models differ from the run's only in execution settings keeps the names the
    run was started with (its records, done jobs and identity carry them): `config`'s model keys are
    set back to the stored ones. Returns what changed, one "role: option, ..." each (for a note)."""
    from oversight_bench.models import execution_changes

    recorded = store.read_identity() or store.read_config() or {}
    changed = []
    for key in MODEL_KEYS:
        was, now = recorded.get(key), config.get(key)
        if was is None or now is None or was == now or not same_models(was, now):
            continue
        pairs = zip(was, now) if isinstance(was, list) else [(was, now)]
        opts = sorted({o for a, b in pairs for o in execution_changes(a, b)})
        changed.append(f"{key}: {', '.join(opts)}")
        config[key] = was
    return changed


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
