"""The layering rule: the core imports no plugin package, and every plugin package (the built-in ones
the distribution's `oversight_bench` entry points name, and the example packs) imports only the
public API (`oversight_bench.api`, plus `hookimpl` and `__version__` from `oversight_bench`) and
no other plugin package. Read from the source's imports, every form of them included."""

from __future__ import annotations

import ast
import re
import importlib.metadata as md
import tomllib
from pathlib import Path

import pytest

from helpers import REPO

GROUP = "oversight_bench"
#: what a plugin may take from `oversight_bench` itself
TOP_LEVEL = {"hookimpl", "__version__", "api"}


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names imported from it) for every absolute import, at any depth, including
    `importlib.import_module("...")` with a literal name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.args[0].value, []))
    return found


def _entry_point_packages(modules) -> set[str]:
    return {m.split(":")[0].split(".")[0] for m in modules}


def plugin_packages() -> dict[str, Path]:
    """Every plugin package's folder by its import name: the built-ins from the installed
    distribution's entry points, the example packs from their pyproject.toml."""
    builtin = _entry_point_packages(ep.value for ep in md.distribution("oversight-bench").entry_points if ep.group == GROUP)
    found = {name: REPO / name for name in builtin}
    for pack in (REPO / "examples" / "task_pack", REPO / "examples" / "protocol_interactive_debate", REPO / "tests" / "plugin_example"):
        project = tomllib.loads((pack / "pyproject.toml").read_text(encoding="utf-8"))
        for name in _entry_point_packages(project["project"]["entry-points"][GROUP].values()):
            found[name] = pack / name
    return found


PLUGINS = plugin_packages()


def test_every_plugin_package_is_found():
    assert {"protocol_plugins", "model_adapters", "task_configs", "human_judging", "transcript_suites",
            "obench_capitals", "obench_interactive_debate", "obench_example_plugin"} <= set(PLUGINS)
    assert all(p.is_dir() for p in PLUGINS.values()), PLUGINS


def test_core_imports_no_plugin_package():
    modules = sorted((REPO / "oversight_bench").rglob("*.py"))
    assert len(modules) > 20
    bad = [f"{p.relative_to(REPO)}:{line} imports {name}" for p in modules for line, name, _ in _imports(p)
           if name.split(".")[0] in PLUGINS]
    assert not bad, "the core must not import plugin packages:\n" + "\n".join(bad)


def _violations(package: str, path: Path) -> list[str]:
    from oversight_bench import api

    bad = []
    for line, module, names in _imports(path):
        top = module.split(".")[0]
        if module == "oversight_bench":
            wrong = [n for n in names if n not in TOP_LEVEL] or ([] if names else [module])
        elif module == "oversight_bench.api":
            wrong = [f"api.{n}" for n in names if n not in api.__all__]
        elif top == "oversight_bench" or (top in PLUGINS and top != package):
            wrong = [module]
        else:
            continue
        bad += [f"{path}:{line} imports {w}" for w in wrong]
    return bad


@pytest.mark.parametrize("package", sorted(PLUGINS))
def test_plugin_imports_only_the_public_api(package):
    root = PLUGINS[package]
    files = sorted(root.rglob("*.py"))
    assert files
    bad = [v for p in files for v in _violations(package, p)]
    assert not bad, (f"plugin package {package} must import only oversight_bench.api (and hookimpl, __version__) "
                     "and no other plugin package:\n" + "\n".join(bad))


def test_the_layering_check_sees_every_import_form(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import task_configs\nfrom protocol_plugins.common import x\nimport os, model_adapters.hf\n"
                 "from oversight_bench import hookimpl, cli\nfrom . import sibling\n"
                 "def f():\n    import importlib\n    importlib.import_module('task_configs.loaders')\n")
    assert [(n, names) for _, n, names in _imports(p)] == [
        ("task_configs", []), ("protocol_plugins.common", ["x"]), ("os", []), ("model_adapters.hf", []),
        ("oversight_bench", ["hookimpl", "cli"]), ("importlib", []), ("task_configs.loaders", [])]
    assert [v.split(" imports ")[1] for v in _violations("protocol_plugins", p)] == [
        "task_configs", "model_adapters.hf", "cli", "task_configs.loaders"]


def test_the_check_refuses_core_privates_and_names_missing_from_the_api(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("from oversight_bench.api import BenchError, not_public\nfrom oversight_bench.scheduler import note_retry\n"
                 "import oversight_bench\nfrom task_configs.sandbox import run_programs\n")
    assert [v.split(" imports ")[1] for v in _violations("task_configs", p)] == [
        "api.not_public", "oversight_bench.scheduler", "oversight_bench"]


def test_every_public_name_resolves():
    from oversight_bench import api

    missing = [n for n in api.__all__ if getattr(api, n, None) is None]
    assert not missing
    with pytest.raises(AttributeError, match="no 'nope'"):
        api.nope  # noqa: B018


def test_the_core_names_no_plugins_model_protocol_task_or_suite():
    """The core takes protocols, tasks, models and suites from what plugins register (their facts, e.g.
    `Protocol.has_debaters`, a task file's `in_default_run`, a suite's `import_kind`), so no core string
    is such a name, and no core text outside a docstring holds a suite's, importer's or model's name
    (a glob "khan-2024-*", a help text). "quality" is also the core's word for transcript quality
    (`analysis.quality`), so it is left out."""
    from oversight_bench.models import model_names
    from oversight_bench.registry import get_registry

    reg = get_registry()
    names = {**{n: "protocol" for n in reg.names("protocols")}, **{n: "task" for n in reg.names("tasks")},
             **{n: "model" for n in model_names()}, **{n: "suite" for n in reg.names("suites")},
             **{kind: "suite's importer" for kind in (getattr(reg.get("suites", n), "import_kind", "")
                                                      for n in reg.names("suites")) if kind}}
    names.pop("quality", None)
    assert {"debate", "boolq", "qwen2.5-coder-0.5b", "nyu-2023", "nyu-debate"} <= set(names)  # the built-ins are installed
    bad = [f"{p.relative_to(REPO)}:{node.lineno} names {names[node.value]} {node.value!r}"
           for p in sorted((REPO / "oversight_bench").rglob("*.py"))
           for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
           if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]
    assert not bad, "the core must not name a plugin's protocol, task or model:\n" + "\n".join(bad)
    # suite, importer and model names are no everyday words: inside a longer string too ("khan-2024-*",
    # "the cached khan-2024 suite"), outside docstrings (which may name a built-in as an example)
    distinct = {n: k for n, k in names.items() if k in ("suite", "suite's importer", "model")}
    within = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(distinct, key=len, reverse=True))) + r")(?!\w)")
    inside = []
    for p in sorted((REPO / "oversight_bench").rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if m := within.search(node.value):
                    inside.append(f"{p.relative_to(REPO)}:{node.lineno} names {distinct[m.group(1)]} {m.group(1)!r} "
                                  f"in {node.value[:60]!r}")
    assert not inside, "the core must not name a plugin's suite or model, even inside a text:\n" + "\n".join(inside)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of a parsed module's docstring constants (module, class and function docstrings)."""
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}


# -- the import graph: no circles, nothing climbing back up ------------------------------------------

ARCHITECTURE = REPO / "docs" / "concepts" / "architecture.md"


def layers(text: str | None = None) -> list[tuple[str, list[str]]]:
    """(layer, module patterns) lowest first, from the table between the `layers` markers of
    docs/concepts/architecture.md: the one place the layers are written down."""
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    table = text.split("<!-- layers")[1].split("<!-- /layers -->")[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.splitlines()
            if line.startswith("|") and not line.startswith("|---")][1:]
    return [(row[0], [m.strip() for m in row[2].split(",")]) for row in rows]


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at `root` by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes under `if TYPE_CHECKING:` (imports that never run)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def import_edges(name: str, path: Path, known: set[str]) -> list[tuple[int, str]]:
    """(line, module) for every import of `known` modules by module `name`, at its top or inside a
    function, relative ones resolved, `importlib.import_module("...")` included; `from pkg import x`
    is an import of `pkg.x` where that is a module, else of `pkg`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _type_checking_only(tree)
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    edges = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets = [node.args[0].value]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.append((node.lineno, target))
    return edges


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """module -> {module it imports: the line of the first such import}, within the package at `root`."""
    modules = module_names(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        graph[name] = {}
        for line, target in import_edges(name, path, set(modules)):
            graph[name].setdefault(target, line)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The import circles: each strongly connected group of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(groups)


def layer_of(modules, table, package: str = "oversight_bench") -> tuple[dict[str, int], list[str]]:
    """Each module's layer (its index in `table`) and the modules no layer (or two) names."""
    def matches(module: str, pattern: str) -> bool:
        rel = "(package)" if module == package else module.removeprefix(package + ".")
        return rel == pattern or (pattern.endswith(".*") and rel.startswith(pattern[:-1]))

    found, bad = {}, []
    for module in sorted(modules):
        at = [i for i, (_, patterns) in enumerate(table) for p in patterns if matches(module, p)]
        if len(at) == 1:
            found[module] = at[0]
        else:
            bad.append(f"{module}: in {'no layer' if not at else 'layers ' + ', '.join(table[i][0] for i in at)}")
    return found, bad


def upward_imports(graph, layer: dict[str, int], table) -> list[str]:
    return [f"{m} ({table[layer[m]][0]}) imports {t} ({table[layer[t]][0]}) at line {line}"
            for m, targets in sorted(graph.items()) for t, line in sorted(targets.items()) if layer[t] > layer[m]]


CORE_GRAPH = import_graph(REPO / "oversight_bench")


def test_every_core_module_stands_in_one_layer():
    assert len(CORE_GRAPH) > 40 and len(layers()) >= 6
    _, unplaced = layer_of(CORE_GRAPH, layers())
    assert not unplaced, ("place every module in one layer of the table in docs/concepts/architecture.md:\n"
                          + "\n".join(unplaced))


def test_the_core_has_no_import_circle():
    found = cycles(CORE_GRAPH)
    assert not found, "import circles (module-level and lazy imports together):\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_core_module_imports_from_a_higher_layer():
    table = layers()
    layer, _ = layer_of(CORE_GRAPH, table)
    bad = upward_imports(CORE_GRAPH, layer, table)
    assert not bad, "imports from a lower layer to a higher one (docs/concepts/architecture.md):\n" + "\n".join(bad)


@pytest.mark.parametrize("package", sorted(PLUGINS))
def test_no_plugin_package_has_an_import_circle(package):
    found = cycles(import_graph(PLUGINS[package]))
    assert not found, f"import circles in {package}:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_graph_check_sees_lazy_relative_and_dynamic_imports_and_finds_circles_and_climbs(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("from . import base\n")
    (pkg / "low" / "base.py").write_text("def f():\n    from ..high import top\n")  # lazy, relative, climbing
    (pkg / "high.py").write_text("from typing import TYPE_CHECKING\nfrom pkg.low.base import f\n"
                                 "if TYPE_CHECKING:\n    from pkg import mid\n")
    (pkg / "mid.py").write_text("import importlib\nimportlib.import_module('pkg.high')\n")
    graph = import_graph(pkg)
    assert graph == {"pkg": {}, "pkg.low": {"pkg.low.base": 1}, "pkg.low.base": {"pkg.high": 2},
                     "pkg.high": {"pkg.low.base": 2}, "pkg.mid": {"pkg.high": 2}}
    assert cycles(graph) == [["pkg.high", "pkg.low.base"]]
    table = layers("<!-- layers -->\n| layer | what | modules |\n|---|---|---|\n| 1 low | x | (package), low, low.* |\n"
                   "| 2 high | y | high, mid |\n<!-- /layers -->\n")
    layer, unplaced = layer_of(graph, table, "pkg")
    assert not unplaced
    assert upward_imports(graph, layer, table) == ["pkg.low.base (1 low) imports pkg.high (2 high) at line 2"]
    assert layer_of({"pkg.elsewhere": {}}, table, "pkg")[1] == ["pkg.elsewhere: in no layer"]


# -- analysis computes: no clock, git, process, network or model in analysis/ ----------------------

#: what analysis/ may not import: the clock, git and processes, the network, model calls. Reading runs
#: goes through rundir (the storage layer); the rest is the publisher's (publish/), which hands values down.
NO_IO_MODULES = {"datetime", "time", "subprocess", "asyncio", "socket", "urllib", "http", "httpx", "requests",
                 "oversight_bench.provenance"}
NO_IO_NAMES = {("oversight_bench.models", n) for n in ("build_model", "check_spec", "Model")} | {
    ("oversight_bench.yamlio", "read_input_bytes")}


def io_imports(path: Path) -> list[str]:
    """The imports of `path` that do I/O or call models (`NO_IO_MODULES`, `NO_IO_NAMES`), outside
    `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _type_checking_only(tree)
    bad = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            bad += [f"{path.name}:{node.lineno} imports {a.name}" for a in node.names
                    if a.name.split(".")[0] in NO_IO_MODULES or a.name in NO_IO_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in NO_IO_MODULES or node.module in NO_IO_MODULES:
                bad.append(f"{path.name}:{node.lineno} imports {node.module}")
            bad += [f"{path.name}:{node.lineno} imports {node.module}.{a.name}" for a in node.names
                    if (node.module, a.name) in NO_IO_NAMES]
    return bad


def test_analysis_reads_no_clock_git_or_network_and_calls_no_model():
    """analysis/ returns rows and figure data from the runs it is given: the report's time and commit,
    the stance checker's model calls and cache, the carried board's files are the publisher's
    (`publish.report`, `publish.stance`, `publish.carry`)."""
    files = sorted((REPO / "oversight_bench" / "analysis").glob("*.py"))
    assert len(files) > 8
    bad = [b for p in files for b in io_imports(p)]
    assert not bad, "analysis/ must compute only (publish/ does the I/O and calls models):\n" + "\n".join(bad)


def test_the_io_check_sees_what_it_forbids(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("from typing import TYPE_CHECKING\nimport datetime as _dt\nfrom oversight_bench.provenance import git_commit\n"
                 "def f():\n    from oversight_bench.models import build_model, judge_label\n"
                 "if TYPE_CHECKING:\n    from oversight_bench.models import Model\nimport statistics\n")
    assert io_imports(p) == ["m.py:2 imports datetime", "m.py:3 imports oversight_bench.provenance",
                             "m.py:5 imports oversight_bench.models.build_model"]
