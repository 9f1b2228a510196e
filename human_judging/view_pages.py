"""The viewer's pages, served or exported: where they link (`Links`), the list's context (filters,
sort, paging) and a room's place in it (`room_nav`), drawn by the core's one Jinja environment
(`plugin_pages`): everything shown is escaped (`render_passages` escapes first) and no page runs a
script."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from oversight_bench.api import plugin_pages, redact_text

from human_judging.view_index import FACETS, FLAGS, Index, Room, question_key

TEMPLATES = Path(__file__).parent / "templates"
PAGE_SIZE = 50
FLAG_HELP = {"forced": "an agent turn spent its thinking budget and was continued from \"Argument:\"",
             "cut": "an agent turn spent its argument budget", "empty": "an agent turn gave no argument",
             "invalid": "a judge's answer did not parse"}

#: the pages, drawn by the core's one environment (its `passages` and `p` filters among them)
_pages = plugin_pages("human_judging", TEMPLATES)


class Links:
    """Where the pages link: the app's routes, or the static export's relative files."""

    def __init__(self, static: bool = False, depth: int = 0, back: dict[str, str] | None = None):
        self.static, self.up = static, "../" * depth
        #: a page the static export links back to (the leaderboard it was exported for): {"link", "title"}
        self.back = back

    def back_link(self) -> str | None:
        return self.up + self.back["link"] if self.static and self.back else None

    def style(self) -> str:
        return self.up + "view.css" if self.static else "/view.css"

    def home(self) -> str:
        return self.up + "index.html" if self.static else "/"

    def room(self, room: Room) -> str:
        return f"{self.up}rooms/{room.id}.html" if self.static else f"/room/{room.id}"

    def run(self, i: int) -> str:
        """Run `i`'s overview page."""
        return f"{self.up}runs/{i + 1}.html" if self.static else f"/run/{i + 1}"

    def question(self, room: Room) -> str:
        key = question_key(room.task, room.question_id)
        return f"{self.up}questions/{key}.html" if self.static else f"/question/{key}"


def render(name: str, **ctx: Any) -> str:
    return redact_text(_pages.render(f"human_judging/{name}", flags_help=FLAG_HELP, **ctx))


def list_context(index: Index, params: dict[str, str], page_size: int = PAGE_SIZE) -> dict[str, Any]:
    started = time.perf_counter()
    rooms = index.select(params)
    n_pages = max(1, -(-len(rooms) // page_size))
    try:
        page = min(max(1, int(params.get("page") or 1)), n_pages)
    except ValueError:
        page = 1
    shown = rooms[(page - 1) * page_size: page * page_size]
    kept = {k: v for k, v in params.items() if v and k != "page"}

    def qs(**changes: Any) -> str:
        merged = {**kept, **{k: v for k, v in changes.items()}}
        return "?" + urlencode({k: v for k, v in merged.items() if v not in (None, "")})

    #: a room's link carries the list's filters, so its page steps through this selection
    room_qs = ("?" + urlencode(kept)) if kept else ""

    def sort_link(col: str) -> str:
        cur = kept.get("sort", "")
        return qs(sort=f"-{col}" if cur == col else col, page=None)

    return {"rooms": shown, "n": len(rooms), "total": len(index.rooms), "page": page, "n_pages": n_pages,
            "fulltext": index.fulltext.ready.is_set() and index.fulltext.error is None,
            "params": kept, "facets": index.facets, "qs": qs, "sort_link": sort_link, "labels": index.labels,
            "seconds": time.perf_counter() - started, "flags": FLAGS, "room_qs": room_qs}


#: the query parameters of the list (its filters and sort) that a room's page keeps
LIST_PARAMS = (*FACETS, "flag", "wrong", "disagree", "q", "sort")


def _list_params(request, *more: str) -> dict[str, str]:
    return {k: v for k, v in request.query_params.items() if k in (*LIST_PARAMS, *more) and v}


def room_nav(index: Index, room: Room, params: dict[str, str], page_size: int = PAGE_SIZE) -> dict[str, Any]:
    """A room's previous and next room in the list the filters make, and the link back to the page
    of that list that holds it; the filters travel in every link. A room the filters leave out (an
    old link) steps through the whole list from nowhere: back goes to the filtered list."""
    rooms, k = index.position(room, params)
    qs = urlencode(params)
    suffix = f"?{qs}" if qs else ""
    page = k // page_size + 1 if k >= 0 else 1
    back = "/?" + urlencode({**params, **({"page": page} if page > 1 else {})}) if (params or page > 1) else "/"
    return {"prev": f"/room/{rooms[k - 1].id}{suffix}" if k > 0 else None,
            "next": f"/room/{rooms[k + 1].id}{suffix}" if 0 <= k < len(rooms) - 1 else None,
            "back": back, "at": k + 1, "of": len(rooms), "filtered": bool(params)}
