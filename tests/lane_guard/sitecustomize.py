"""Refuses real local models in tests that are not marked `integration`.

tests/conftest.py puts this folder on PYTHONPATH, so every Python process a test starts imports it at
start-up (as `sitecustomize`); the pytest process loads it through conftest. While `GUARD_ENV` is set
(conftest sets it around each test without the `integration` marker), constructing a llama.cpp model
or resolving one of the named local models to its real weights raises, and the attempt is appended
to the file named by `LOG_ENV`, so a caller that catches the error cannot hide it: conftest fails the
test that wrote the line. This keeps the fast lane free of real models by check, not by a list.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

GUARD_ENV = "OVERSIGHT_BENCH_TEST_NO_REAL_MODELS"
LOG_ENV = "OVERSIGHT_BENCH_TEST_REAL_MODEL_LOG"
HINT = "a test that loads a real model must be marked @pytest.mark.integration"


class RealModelRefused(Exception):
    """Not a RuntimeError/ValueError, which the llama.cpp adapter turns into a load error."""


def refuse(what: str) -> None:
    """Log and raise when the guard is on; return otherwise."""
    if not os.environ.get(GUARD_ENV):
        return
    log = os.environ.get(LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{what} (pid {os.getpid()})\n")
    raise RealModelRefused(f"{what}: {HINT} (it runs in the integration lane, not the fast one)")


def _patch_llama(module) -> None:
    """Every GGUF load goes through llama_cpp.Llama's constructor, named model or path alike."""
    llama = module.Llama
    original = llama.__init__
    if getattr(original, "_lane_guard", False):
        return

    def __init__(self, *args, **kwargs):
        refuse(f"llama.cpp load of {kwargs.get('model_path', args[0] if args else '?')}")
        original(self, *args, **kwargs)

    __init__._lane_guard = True
    llama.__init__ = __init__


def _patch_local_models(module) -> None:
    """The named local models as shipped; a test's own LocalModel entries (fake parts) stay allowed."""
    shipped = dict(module.MODELS)
    original = module.model_path
    if getattr(original, "_lane_guard", False):
        return

    def model_path(name):
        if name in shipped and module.MODELS.get(name) is shipped[name]:
            refuse(f"local model {name!r} (real weights)")
        return original(name)

    model_path._lane_guard = True
    module.model_path = model_path


PATCHES = {"llama_cpp.llama": _patch_llama, "model_adapters.local_models": _patch_local_models}


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds a patched module through the other finders and patches it once it has executed,
    so nothing heavy is imported here (tests check that importing the package stays light)."""

    _lane_guard = True  # one per process, even when this file is loaded under two module names

    def find_spec(self, name, path=None, target=None):
        if name not in PATCHES:
            return None
        for finder in sys.meta_path:
            if getattr(finder, "_lane_guard", False) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            PATCHES[name](module)

        loader.exec_module = exec_and_patch
        return spec


def install() -> None:
    """Patch the modules already imported and those imported later."""
    for name, patch in PATCHES.items():
        if name in sys.modules:
            patch(sys.modules[name])
    if not any(getattr(f, "_lane_guard", False) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())


def _run_shadowed_sitecustomize() -> None:
    """A Python distribution may ship its own sitecustomize, which this one would hide."""
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if __name__ == "sitecustomize":
    install()
    _run_shadowed_sitecustomize()
