"""The layering rule: the core imports no plugin package, and every plugin package (the built-in ones
the distribution's `oversight_bench` entry points name, and the example packs) imports only the
public API (`oversight_bench.api`, plus `hookimpl` and `__version__` from `oversight_bench`) and
no other plugin package. Read from the source's imports, every form of them included."""

from __future__ import annotations

import ast
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


def test_the_core_names_no_plugins_model_protocol_or_task():
    """The core takes protocols, tasks and models from what plugins register (their facts, e.g.
    `Protocol.has_debaters`, a task file's `in_default_run`), so no core string is such a name.
    "quality" is also the core's word for transcript quality (`analysis.quality`), so it is left out."""
    from oversight_bench.models import model_names
    from oversight_bench.registry import get_registry

    reg = get_registry()
    names = {**{n: "protocol" for n in reg.names("protocols")}, **{n: "task" for n in reg.names("tasks")},
             **{n: "model" for n in model_names()}}
    names.pop("quality", None)
    assert {"debate", "boolq", "qwen2.5-coder-0.5b"} <= set(names)  # the built-in plugins are installed
    bad = [f"{p.relative_to(REPO)}:{node.lineno} names {names[node.value]} {node.value!r}"
           for p in sorted((REPO / "oversight_bench").rglob("*.py"))
           for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
           if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]
    assert not bad, "the core must not name a plugin's protocol, task or model:\n" + "\n".join(bad)
