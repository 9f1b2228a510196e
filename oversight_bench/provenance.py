"""What a run records about where it came from: package versions, git commit, machine."""

from __future__ import annotations

import importlib.metadata as md
import platform
import subprocess
import sys
import time
from pathlib import Path

_PACKAGES = ("oversight-bench", "openai", "llama_cpp_python", "transformers", "vllm", "lm_eval", "torch",
             "datasets", "scipy", "pluggy", "pydantic")


def package_versions(extra: list[str] = ()) -> dict[str, str]:
    out = {}
    for name in (*_PACKAGES, *extra):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    return out


def git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        res = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return res.stdout.strip() or None if res.returncode == 0 else None


def provenance(plugin_packages: list[str] = ()) -> dict:
    return {
        "versions": package_versions(list(plugin_packages)),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "commit": git_commit(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
