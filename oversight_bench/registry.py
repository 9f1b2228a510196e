"""The plugin registry: entry-point discovery, pluggy hook calls, name lookup with "did you mean",
broken-plugin reports.

Built-in plugins (protocol_plugins, model_adapters, task_configs) come through the same
`oversight_bench` entry-point group as third-party ones, always load, and load first.
`OVERSIGHT_BENCH_PLUGINS` (comma-separated distribution or entry-point names, may be empty; the older
name `OVERSIGHT_BENCH_LOAD_PLUGINS` is read too) selects which third-party packages load, like
`LLM_LOAD_PLUGINS` in simonw/llm. `OVERSIGHT_BENCH_TRACE=1` prints every hook call to stderr (as
datasette's plugin tracing does).

A broken plugin is one warning, never the tool's end: anything it raises at its import or in any of
its hooks (`SystemExit`, a `KeyboardInterrupt` it raises itself, any `BaseException`) marks that
plugin broken (`list plugins` says why); a real Ctrl-C still stops the tool. What a plugin prints
while it loads goes to stderr, so a command's output (`export`'s JSON) stays its own. Distribution
metadata without a name or version is shown as the entry point's module and "?". A registration whose name
another package registered first (the built-ins are first), a protocol whose option another
protocol declares differently, or an object whose attributes raise when read (`READ_AT_REGISTRATION`), is
skipped; the plugin's other registrations stand, and `list plugins` lists what was skipped. Whatever one
plugin did wrong is said in one warning line (`warning_line`), however many things it was.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.metadata as md
import os
import re
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import pluggy

from oversight_bench import hookspecs
from oversight_bench.errors import BenchError, terminal_line

GROUP = "oversight_bench"
ENV_LOAD = "OVERSIGHT_BENCH_PLUGINS"
#: the selection's older name, still read where the new one is not set
ENV_LOAD_OLD = "OVERSIGHT_BENCH_LOAD_PLUGINS"
ENV_TRACE = "OVERSIGHT_BENCH_TRACE"
#: the distribution whose entry points are the built-ins (never filtered out)
BUILTIN_PACKAGE = "oversight-bench"
KINDS = ("tasks", "protocols", "models", "model_names", "loaders", "suites", "judge_tools", "room_writers")
#: kinds registered as register(name, obj); the others as register(obj) with obj.name
NAMED_KINDS = ("models", "loaders", "room_writers")
#: what a registered name may be: one line of plain characters (sorted, shown, typed on a command line)
NAME = re.compile(r"[A-Za-z0-9_.:-]{1,80}")
#: kind -> the attributes the core reads of its objects (an absent one is the interface's default), read
#: once as one registers: an object whose attribute raises is skipped then, named, instead of ending a
#: listing or a run later with a traceback (a protocol's `description`, a task's `paper_order`)
READ_AT_REGISTRATION = {
    "tasks": ("task_type", "paper_order", "paper_task", "in_default_run", "needs_images", "sample_size", "path",
              "choose_source", "available", "load"),
    "protocols": ("description", "uses_agent", "outside_paper", "derived_from", "needs_article", "rejudgeable",
                  "in_default_run", "display_order", "baseline", "speakers", "Options"),
    "suites": ("version", "description", "source", "static", "static_reason", "faithful_arguments", "materialize"),
    "judge_tools": ("label", "tasks", "description", "supports", "run"),
    "model_names": ("spec", "default_for", "status"),
}


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
    #: registrations skipped (a clash, an unreadable object, a command it replaced), each one line naming it
    skipped: list[str] = field(default_factory=list)
    #: what the user can do about the skipped ones, said once at the end of the warning
    hints: list[str] = field(default_factory=list)
    #: the problems already said in a warning (`warning_line` says only the new ones)
    said: set[str] = field(default_factory=set)

    def skip(self, line: str, hint: str = "") -> None:
        self.skipped.append(line)
        if hint and hint not in self.hints:
            self.hints.append(hint)

    def warning_line(self) -> str | None:
        """Every problem of this plugin not yet said, as one line (None: nothing new): its failure
        first, then what was skipped, then the hints."""
        error = f"plugin {self.name} ({self.package} {self.version}) failed to load: {self.error}" if self.error else None
        new = [p for p in (error, *self.skipped) if p and p not in self.said]
        if not new:
            return None
        self.said.update(new)
        hints = [h for h in self.hints if h not in self.said]
        self.said.update(hints)
        return terminal_line("warning: " + "; ".join(new + hints))


def _trace_before(hook_name: str, hook_impls: list, kwargs: dict) -> None:
    args = ", ".join(f"{k}={getattr(v, '__name__', type(v).__name__)}" for k, v in kwargs.items())
    impls = ", ".join(i.plugin_name for i in hook_impls) or "(none)"
    print(f"oversight-bench hook: {hook_name}({args}) -> {impls}", file=sys.stderr)


def _trace_after(outcome, hook_name: str, hook_impls: list, kwargs: dict) -> None:
    exc = outcome.exception
    if exc is not None:
        print(f"oversight-bench hook: {hook_name} raised {type(exc).__name__}: {exc}", file=sys.stderr)


def _canonical(name: str) -> str:
    """A distribution name as packaging normalises it (PEP 503): `Obench_Example.plugin` -> `obench-example-plugin`."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def _one_line(exc: BaseException, limit: int = 500) -> str:
    """A plugin's error as one line, cut to `limit` characters (a 5 MB message is the plugin's bug, not a warning)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters)"


@contextlib.contextmanager
def _stdout_fd_to_stderr():
    """File descriptor 1 pointed at 2 while a plugin's code runs: `os.write(1, ...)` (or a C library's
    printf) would otherwise land in a command's own output (export's JSONL, say)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):  # no descriptor 1 or 2 (an embedding host): nothing to guard
        yield
        return
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class _Guard:
    """Around a plugin's code: its prints go to stderr, and whether a KeyboardInterrupt it ends with
    came from a real Ctrl-C (SIGINT while it ran: the tool stops) or from the plugin (it is broken)."""

    def __init__(self) -> None:
        self.signalled = False
        self.watching = False  # False: SIGINT could not be watched, so a KeyboardInterrupt counts as a real Ctrl-C

    @contextlib.contextmanager
    def __call__(self):
        handler = signal.getsignal(signal.SIGINT)
        own = threading.current_thread() is threading.main_thread() and handler is signal.default_int_handler
        # SIGINT ignored (a background or nohup job): no Ctrl-C can arrive, so any KeyboardInterrupt is the plugin's
        self.watching = own or handler is signal.SIG_IGN
        if own:
            def interrupted(signum, frame):
                self.signalled = True
                raise KeyboardInterrupt
            signal.signal(signal.SIGINT, interrupted)
        try:
            with _stdout_fd_to_stderr(), contextlib.redirect_stdout(sys.stderr):
                yield
        finally:
            if own:
                signal.signal(signal.SIGINT, signal.default_int_handler)

    def failure(self, exc: BaseException) -> str:
        """The plugin's failure as one line; a real Ctrl-C is raised on."""
        if isinstance(exc, KeyboardInterrupt) and (self.signalled or not self.watching):
            raise exc
        return failure_text(exc)


def failure_text(exc: BaseException) -> str:
    """What a plugin's code raised, as one line: its type and message, cut (`_one_line`)."""
    try:
        text = _one_line(exc)
    except BaseException:  # noqa: BLE001 - an exception whose message itself raises
        text = "(its message cannot be shown)"
    return f"{type(exc).__name__}: {text}"


def _dist_name(ep) -> str:
    """The distribution's name, or the entry point's module where its metadata has none."""
    try:
        name = ep.dist.metadata["Name"] if ep.dist else None
    except Exception:  # noqa: BLE001 - unreadable metadata is the plugin's to fix, not the tool's end
        name = None
    return name if isinstance(name, str) and name.strip() else str(ep.module)


def _dist_version(ep) -> str:
    try:
        version = ep.dist.version if ep.dist else None
    except Exception:  # noqa: BLE001
        version = None
    return version if isinstance(version, str) and version.strip() else "?"


class Registry:
    """Everything the loaded plugins registered, by kind and name."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(GROUP)
        self.pm.add_hookspecs(hookspecs)
        if os.environ.get(ENV_TRACE, "").strip().lower() in ("1", "true", "yes", "on"):
            self.pm.add_hookcall_monitoring(_trace_before, _trace_after)
        self.entries: dict[str, dict[str, Entry]] = {k: {} for k in KINDS}
        self.plugins: list[PluginInfo] = []

    # -- loading -------------------------------------------------------------------------------
    def load_entry_points(self) -> None:
        allowed = os.environ.get(ENV_LOAD, os.environ.get(ENV_LOAD_OLD))
        allow = None if allowed is None else {_canonical(n) for n in allowed.split(",") if n.strip()}
        seen = {(p.package, p.name) for p in self.plugins}

        def builtin_first(ep) -> bool:
            return _canonical(_dist_name(ep)) != BUILTIN_PACKAGE

        for ep in sorted(md.entry_points(group=GROUP), key=builtin_first):  # stable: install order kept
            package, version = _dist_name(ep), _dist_version(ep)
            if (package, ep.name) in seen:
                continue  # the same distribution found twice on the path
            seen.add((package, ep.name))
            builtin = _canonical(package) == BUILTIN_PACKAGE
            if allow is not None and not builtin and _canonical(package) not in allow and _canonical(ep.name) not in allow:
                continue
            self.add_module_plugin(ep.name, package, version, loader=ep.load)

    def add_module_plugin(self, name: str, package: str, version: str, loader=None, module=None) -> None:
        """Import (via `loader`) and register one plugin, then call its registration hooks; a
        failure is recorded on the plugin, not raised (a name clash is the user's to fix: raised)."""
        info = PluginInfo(name=name, package=package, version=version)
        self.plugins.append(info)
        guard = _Guard()
        try:
            with guard():
                module = loader() if loader else module
                self.pm.register(module, name=f"{package}:{name}")
        except BaseException as exc:  # a broken plugin must not take the CLI down (not even sys.exit())
            info.error = guard.failure(exc)
            return
        info.hooks = sorted(h.name for h in self.pm.get_hookcallers(module) or [])
        for kind in KINDS:
            self._call_plugin(module, info, f"register_{kind}", register=self._registrar(kind, package, version, name))

    def _call_plugin(self, plugin: Any, info: PluginInfo, hook: str, **kwargs: Any) -> None:
        """Call `pm.hook.<hook>` restricted to one plugin, so one that raises is reported and
        the others still register."""
        if info.error or hook not in info.hooks:
            return
        others = [p for p in self.pm.get_plugins() if p is not plugin]
        guard = _Guard()
        try:
            with guard():
                self.pm.subset_hook_caller(hook, remove_plugins=others)(**kwargs)
        except BaseException as exc:  # BenchError, SystemExit, any BaseException: a plugin's error is that plugin's
            info.error = f"{hook} failed: {guard.failure(exc)}"

    def call_each(self, hook: str, *, after: Callable[[Any], None] | None = None, warn: bool = True,
                  **kwargs: Any) -> None:
        """Call `pm.hook.<hook>` on every loaded plugin, each on its own (see `_call_plugin`);
        `after(info)` after each one's call (to check what that plugin did, and record it with
        `info.skip`), then one warning for what that plugin did wrong (`warn=False`: the caller says
        it later with `warn_new`, so several hooks' problems of one plugin are still one line)."""
        for info in self.plugins:
            plugin = self.pm.get_plugin(f"{info.package}:{info.name}")
            if plugin is not None and not info.error:
                self._call_plugin(plugin, info, hook, **kwargs)
                if after is not None:
                    after(info)
                if warn:
                    _warn(info)

    def warn_new(self) -> None:
        """One warning line for each plugin with problems not yet said."""
        for info in self.plugins:
            _warn(info)

    def _registrar(self, kind: str, package: str, version: str, plugin: str):
        info = next(p for p in reversed(self.plugins) if p.name == plugin and p.package == package)

        def register(*args):
            if kind in NAMED_KINDS:
                name, obj = args
            else:
                (obj,) = args
                name = getattr(obj, "name", None)
            if not isinstance(name, str) or not NAME.fullmatch(name):
                info.skip(f"{kind[:-1]} {str(name)[:40]!r} of {package} (plugin {plugin}) skipped: its name is no plain name",
                          "expected letters, digits, _ . - : (at most 80)")
                return
            unreadable = _unreadable(kind, obj)
            if unreadable:
                info.skip(f"{kind[:-1]} {name!r} of {package} (plugin {plugin}) skipped: {unreadable}")
                return
            clash = self._clash(kind, name, obj, package)
            if clash:
                info.skip(f"{kind[:-1]} {name!r} of {package} (plugin {plugin}) skipped: {clash}",
                          f"uninstall one, or select plugins with {ENV_LOAD}=")
                return
            self.entries[kind][name] = Entry(name, obj, package, version)

        return register

    def _clash(self, kind: str, name: str, obj: Any, package: str) -> str | None:
        """Why a registration cannot stand beside the ones before it (None: it can)."""
        existing = self.entries[kind].get(name)
        if existing is not None and existing.package != package:
            return f"{existing.package} registers that name already"
        check = KIND_CHECKS.get(kind)
        others = [e for e in self.entries[kind].values() if not (e.package == package and e.name == name)]
        return check(obj, others) if check else None

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

#: kind -> why an object cannot stand beside the entries of its kind registered before it (None: it
#: can). The module that defines a kind's interface adds its check (`protocol_options`: a protocol's
#: options), so the registry imports none of them (no import circle). A protocol subclasses
#: `Protocol`, whose module imports `protocol_options`, so the check is in place before one registers.
KIND_CHECKS: dict[str, Callable[[Any, list["Entry"]], str | None]] = {}


def _unreadable(kind: str, obj: Any) -> str | None:
    """Why `obj` cannot be registered as a `kind` (None: it can): reading one of the attributes the
    core reads of it (`READ_AT_REGISTRATION`) raised something other than AttributeError."""
    for attr in READ_AT_REGISTRATION.get(kind, ()):
        try:
            getattr(obj, attr, None)
        except Exception as exc:  # noqa: BLE001 - the plugin's bug, said once here, not a traceback later
            return f"reading its {attr} raised {failure_text(exc)}"
    return None


def listed(kind: str, entry: Entry, build: Callable[[], str], warn: Callable[[str], None], width: int = 22) -> str:
    """The listing line `build()` makes of a registered `entry`. One whose object raises while its line
    is made (a plugin's property, a suite whose data is gone) is a line saying BROKEN with the error
    (redacted, one line) and one warning naming its package: the other entries are still listed."""
    from oversight_bench.redact import redact_text

    try:
        return build()
    except Exception as exc:  # noqa: BLE001 - one entry's bug, not the listing's end
        error = terminal_line(redact_text(failure_text(exc)))
        warn(f"warning: {kind[:-1]} {entry.name!r} of {entry.package} {entry.version} is broken: {error}")
        return f"{entry.name:<{width}} BROKEN ({entry.package} {entry.version}): {error}"


def get_registry(*, warn: bool = True) -> Registry:
    """The process-wide registry, loaded on first use. `warn=False`: its plugins' problems are said
    later by the caller (`Registry.warn_new`), with those of the hooks it calls next, one line a plugin."""
    global _REGISTRY
    if _REGISTRY is None:
        reg = Registry()
        reg.load_entry_points()
        _REGISTRY = reg
        if warn:
            reg.warn_new()
    return _REGISTRY


def _warn(p: PluginInfo) -> None:
    line = p.warning_line()
    if line:
        print(line, file=sys.stderr)


def reset_registry() -> None:
    """Forget the loaded registry (tests install plugins at run time)."""
    global _REGISTRY
    _REGISTRY = None
