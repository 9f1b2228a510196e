"""The plugin registry: entry-point discovery, name lookup with "did you mean", broken-plugin reports.

Built-in plugins come through the same `oversight_bench` entry-point group as third-party ones.
`OVERSIGHT_BENCH_LOAD_PLUGINS` (comma-separated distribution names, may be empty) limits which
packages load, like `LLM_LOAD_PLUGINS` in simonw/llm.
"""

from __future__ import annotations

import difflib
import importlib.metadata as md
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import pluggy

from oversight_bench import hookspecs
from oversight_bench.errors import BenchError

GROUP = "oversight_bench"
ENV_LOAD = "OVERSIGHT_BENCH_LOAD_PLUGINS"
KINDS = ("tasks", "protocols", "models", "suites")


@dataclass
class Entry:
    """One registered thing and where it came from."""

    name: str
    obj: Any
    package: str
    version: str


@dataclass
class PluginInfo:
    name: str
    package: str
    version: str
    hooks: list[str] = field(default_factory=list)
    error: str | None = None


class Registry:
    """Everything the loaded plugins registered, by kind and name."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(GROUP)
        self.pm.add_hookspecs(hookspecs)
        self.entries: dict[str, dict[str, Entry]] = {k: {} for k in KINDS}
        self.plugins: list[PluginInfo] = []

    # -- loading -------------------------------------------------------------------------------
    def load_entry_points(self) -> None:
        allowed = os.environ.get(ENV_LOAD)
        allow = None if allowed is None else {n.strip() for n in allowed.split(",") if n.strip()}
        for ep in md.entry_points(group=GROUP):
            dist = ep.dist
            package = dist.metadata["Name"] if dist else ep.module
            version = dist.version if dist else "?"
            if allow is not None and package not in allow and ep.name not in allow:
                continue
            self.add_module_plugin(ep.name, package, version, loader=ep.load)

    def add_module_plugin(self, name: str, package: str, version: str, loader=None, module=None) -> None:
        """Import (via `loader`) and register one plugin; a failure is recorded, not raised."""
        info = PluginInfo(name=name, package=package, version=version)
        self.plugins.append(info)
        try:
            module = loader() if loader else module
            self.pm.register(module, name=f"{package}:{name}")
        except Exception as exc:  # a broken plugin must not take the CLI down
            info.error = f"{type(exc).__name__}: {exc}"
            return
        info.hooks = sorted(h.name for h in self.pm.get_hookcallers(module) or [])
        for kind in KINDS:
            hook = getattr(module, f"register_{kind}", None)
            if hook is None:
                continue
            try:
                hook(register=self._registrar(kind, package, version, name))
            except BenchError:
                raise
            except Exception as exc:
                info.error = f"register_{kind} failed: {type(exc).__name__}: {exc}"

    def _registrar(self, kind: str, package: str, version: str, plugin: str):
        def register(*args):
            if kind == "models":
                name, obj = args
            else:
                (obj,) = args
                name = obj.name
            existing = self.entries[kind].get(name)
            if existing is not None and existing.package != package:
                raise BenchError(
                    f"{kind[:-1]} name clash: {name!r} is registered by both "
                    f"{existing.package} and {package} (plugin {plugin}); uninstall one or "
                    f"limit plugins with {ENV_LOAD}"
                )
            self.entries[kind][name] = Entry(name, obj, package, version)

        return register

    # -- lookup --------------------------------------------------------------------------------
    def get(self, kind: str, name: str) -> Any:
        table = self.entries[kind]
        if name in table:
            return table[name].obj
        known = sorted(table)
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise BenchError(f"unknown {kind[:-1]} {name!r}{hint} Known {kind}: {', '.join(known) or '(none)'}")

    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def broken(self) -> list[PluginInfo]:
        return [p for p in self.plugins if p.error]


_REGISTRY: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, loaded on first use."""
    global _REGISTRY
    if _REGISTRY is None:
        reg = Registry()
        reg.load_entry_points()
        _add_core_suites(reg)
        _REGISTRY = reg
        for p in reg.broken():
            print(f"warning: plugin {p.name} ({p.package} {p.version}) failed to load: {p.error}", file=sys.stderr)
    return _REGISTRY


def _add_core_suites(reg: Registry) -> None:
    """The core's own suites (nyu-2023, committed runs) load like any plugin, without an entry point."""
    import importlib

    from oversight_bench import __version__

    allowed = os.environ.get(ENV_LOAD)
    if allowed is not None and not {"oversight-bench", "suites"} & {n.strip() for n in allowed.split(",")}:
        return  # limited like the built-in entry points
    reg.add_module_plugin("suites", "oversight-bench", __version__, loader=lambda: importlib.import_module("oversight_bench.suites"))


def reset_registry() -> None:
    """Forget the loaded registry (tests install plugins at run time)."""
    global _REGISTRY
    _REGISTRY = None
