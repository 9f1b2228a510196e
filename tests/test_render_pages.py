"""The one Jinja environment (`oversight_bench.render.pages`): a core page is strict and escapes as
`html.escape`, a plugin's page keeps Jinja's escaping and lenient fields, both from one environment;
no other environment and no second room template in the tree."""

from __future__ import annotations

import re

import jinja2
import pytest

from helpers import REPO
from oversight_bench.render.pages import environment, plugin_pages, render_page

PACKAGES = ("oversight_bench", "human_judging", "protocol_plugins", "model_adapters", "task_configs", "transcript_suites")


def test_a_core_page_is_strict_and_a_plugins_lenient_by_one_environment(tmp_path):
    (tmp_path / "a.html").write_text("{{ x }}|{% if missing %}y{% endif %}|{{ room_macro is defined }}")
    pages = plugin_pages("test_render_pages", tmp_path)
    assert pages.environment is environment()
    assert pages.render("test_render_pages/a.html", x="it's \"so\"") == "it&#39;s &#34;so&#34;||False"
    with pytest.raises(jinja2.UndefinedError, match="missing"):
        render_page("test_render_pages/a.html", x="it's")
    assert render_page("test_render_pages/a.html", x="it's \"so\"", missing=1) == "it&#x27;s &quot;so&quot;|y|False"


def test_a_plugins_filter_never_replaces_another(tmp_path):
    plugin_pages("test_render_pages_f", tmp_path, {"test_shout": str.upper})
    plugin_pages("test_render_pages_f", tmp_path, {"test_shout": str.upper})  # the same filter again: fine
    with pytest.raises(ValueError, match="passages"):
        plugin_pages("test_render_pages_f", tmp_path, {"passages": str.upper})


def test_one_environment_and_one_room_template_in_the_tree():
    made = [f"{p.relative_to(REPO)}" for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))
            if re.search(r"\bEnvironment\(", p.read_text(encoding="utf-8"))]
    assert made == ["oversight_bench/render/pages.py"]
    rooms = [p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*room*")) if p.suffix in (".html", ".j2")]
    assert (REPO / "oversight_bench" / "render" / "templates" / "room.html.j2") in rooms and len(rooms) >= 3
    for p in rooms:  # every other page of rooms draws them with the one room template
        if p.name != "room.html.j2":
            assert '{% include "room.html.j2" %}' in p.read_text(encoding="utf-8"), p
