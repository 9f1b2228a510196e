"""The one Jinja environment every HTML page is drawn with: the leaderboard's, the viewer's (served
and exported) and the judging app's. Templates live in render/templates (the core's pages and the
room); a plugin adds its own folder under a prefix of its name (`plugin_pages`, through the API).

Two rule sets, chosen per render (so that the pages keep their bytes):
* the core's pages (`render_page`): text escaped as `html.escape` writes it (the escaping
  `render_passages` uses; Jinja's own writes `'` as &#39; rather than &#x27;: as safe, other bytes),
  and a missing field an error rather than an empty string;
* a plugin's pages (`PluginPages.render`): Jinja's own escaping, and a missing field empty (their
  templates test optional fields such as `nav` or `live` by truth).
"""

from __future__ import annotations

import contextvars
import functools
import html
import math
import re
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from oversight_bench.render.markdown import rounded
from oversight_bench.render.numbers import decimal_round, pct

TEMPLATES = Path(__file__).parent / "templates"

#: True while a core page renders (strict, `html.escape`), False while a plugin's does
_CORE_RULES = contextvars.ContextVar("core_page_rules", default=True)
#: a plugin's template folder by its prefix (`plugin_pages`): the environment's loader reads it live
_PLUGIN_FOLDERS: dict[str, jinja2.BaseLoader] = {}


def render_passages(text: str) -> str:
    """HTML-escape a turn, then turn passage tags into highlighted spans."""
    out = html.escape(text or "")
    for tag, cls in (("v_passage", "v-passage"), ("u_passage", "u-passage"), ("quote", "quote")):
        out = out.replace(f"&lt;{tag}&gt;", f'<span class="{cls}" title="{tag}">').replace(f"&lt;/{tag}&gt;", "</span>")
    return out.replace("\n", "<br>")


def _finalize(value: Any) -> Any:
    """Every `{{ value }}`: on a core page, text as `html.escape` writes it and markup (`Markup`) as it
    is; on a plugin's page, as it is (the autoescape then escapes it the Jinja way)."""
    if not _CORE_RULES.get() or hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value)))


class _PageUndefined(jinja2.Undefined):
    """A missing field: an error on a core page (StrictUndefined), empty on a plugin's page."""
    __slots__ = ()

    def _strict(name: str):  # noqa: N805 - builds the methods below
        lenient = getattr(jinja2.Undefined, name)

        def method(self, *args: Any) -> Any:
            if _CORE_RULES.get():
                self._fail_with_undefined_error()
            return lenient(self, *args)

        method.__name__ = name
        return method

    __str__ = _strict("__str__")
    __iter__ = _strict("__iter__")
    __len__ = _strict("__len__")
    __bool__ = _strict("__bool__")
    __eq__ = _strict("__eq__")
    __ne__ = _strict("__ne__")
    __hash__ = _strict("__hash__")
    del _strict


def breakable(text: Any) -> Markup:
    """Text escaped, with a line-break opportunity (<wbr>) after `_ , : /`: long model and protocol
    names wrap in a narrow column instead of widening the table."""
    return Markup(re.sub(r"([_,:/])", r"\1<wbr>", html.escape(str(text))))


def probability(p: Any) -> str:
    """A probability as the viewer's pages show it; what a foreign store holds instead of a number, as its text."""
    number = isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p)
    return "–" if p is None else decimal_round(p, 2) if number else str(p)


@functools.cache
def environment() -> jinja2.Environment:
    """The one environment: autoescaped, the core's templates and each plugin's folder under its
    prefix, the CSS/JS files inlined verbatim (`inline`: the leaderboard opens from disk)."""
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(TEMPLATES), jinja2.PrefixLoader(_PLUGIN_FOLDERS)])
    env = jinja2.Environment(loader=loader, autoescape=True, finalize=_finalize, undefined=_PageUndefined,
                             keep_trailing_newline=True)
    env.filters.update(passages=lambda text: Markup(render_passages(text)), breakable=breakable, rounded=rounded,
                       p=probability, pct=pct, fixed=decimal_round)  # figures by the one rounding rule
    env.globals["inline"] = lambda name: Markup(env.loader.get_source(env, name)[0])
    return env


def render_page(template: str, **context: Any) -> str:
    """A core page (or fragment) from its template, by the core's rules."""
    token = _CORE_RULES.set(True)
    try:
        return environment().get_template(template).render(**context)
    finally:
        _CORE_RULES.reset(token)


class PluginPages:
    """A plugin's pages: its templates (named `<prefix>/<file>`) and the core's, drawn by the one
    environment with a plugin's rules (module docstring)."""

    def __init__(self, prefix: str, folder: str | Path, filters: dict[str, Any] | None = None):
        env = environment()
        for name, fn in (filters or {}).items():
            if env.filters.get(name, fn) is not fn:
                raise ValueError(f"page filter {name!r} is taken")
            env.filters[name] = fn
        _PLUGIN_FOLDERS[prefix] = jinja2.FileSystemLoader(Path(folder))
        self.prefix, self.environment = prefix, env

    def render(self, template: str, **context: Any) -> str:
        token = _CORE_RULES.set(False)
        try:
            return self.environment.get_template(template).render(**context)
        finally:
            _CORE_RULES.reset(token)


def plugin_pages(prefix: str, folder: str | Path, filters: dict[str, Any] | None = None) -> PluginPages:
    """The one environment with a plugin's template folder added under `prefix/` (and its filters)."""
    return PluginPages(prefix, folder, filters)
