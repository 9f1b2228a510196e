"""`oversight-bench view DIR [DIR...]`: browse the evidence behind the numbers, read-only.

A sample list over one or several run directories (one row per room: a job and its agent, with every
judge's verdict on it), sortable, filterable and paged; a room page (the question, the passage with
the quoted spans highlighted, every turn with its thinking behind a toggle, every judge's raw output,
probabilities, tokens, timing and the exact requests sent); a side-by-side page of one question across
protocols and judges. `--export OUT` writes the same pages as static files, with one paged room list
per cell, which a leaderboard links to (`export_static`).

Why this shape: an accuracy is only as good as the transcripts behind it, and 100,000 records must
stay browsable, so the list is an in-memory index of short rows (built from `RunReader.summaries`,
which reads a few JSON fields in SQLite), and each room is read from its store only when opened.
The stores are opened strictly read-only: nothing is written into a run, and a read-only copy works.
Everything shown (model output, dataset text) is escaped by Jinja2's autoescape (`render_passages`
escapes first); the pages run no script (the app's Content-Security-Policy forbids any).

This module is the served app (`create_view_app`); the rest is split by what it does, and its public
names are re-exported here: the index of rooms (`view_index`: reading the runs), what a room's page
shows (`view_models`), the pages and their links (`view_pages`: drawn by the core's one Jinja
environment), and the static export with its cells file (`view_export`).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any
from urllib.parse import urlencode

from human_judging.view_export import (CELL_ID, EXPORT_PAGE_SIZE, MAX_CELLS_BYTES, default_cells, export_static,  # noqa: F401
                                       read_cells, read_cells_file, write_room_pages)
from human_judging.view_index import FACETS, FLAGS, SORTS, Index, Room, Verdict, question_key, room_id, run_dirs  # noqa: F401
from human_judging.view_models import _call_view, _highlight, _quotes, _turn_view  # noqa: F401
from human_judging.view_pages import (FLAG_HELP, LIST_PARAMS, PAGE_SIZE, TEMPLATES, Links, _list_params,  # noqa: F401
                                      list_context, render, room_nav)


# -- the app -----------------------------------------------------------------------------------------

def _build_quietly(index: Index) -> None:
    try:
        index.build()
        print(f"indexed {len(index.rooms)} rooms of {len(index.dirs)} run(s) in {index.index_seconds:.2f} s (read-only)",
              file=sys.stderr)
        index.fulltext.build(index)
        ft = index.fulltext
        print(f"full-text search over {ft.rows} texts ready in {ft.seconds:.2f} s" if ft.error is None else
              f"view: full-text search unavailable ({ft.error}); the text filter searches questions, ids and job keys",
              file=sys.stderr)
    except BaseException as exc:  # noqa: BLE001 - kept in index.error and shown on the list page
        print(f"view: cannot index the runs: {exc}", file=sys.stderr)


VIEW_TOKEN_COOKIE = "oversight_bench_view_token"


class TokenGate:
    """ASGI middleware: every request must carry the viewer's token (constant-time comparison) as a
    Bearer header, or the cookie the link `?token=...` sets (a session, not the token: `LinkSessions`)
    and drops the token from the address bar."""

    def __init__(self, app, token: str):
        from human_judging.app import LinkSessions

        self.app, self.token, self.sessions = app, token, LinkSessions()

    async def __call__(self, scope, receive, send):
        import secrets
        from urllib.parse import urlencode

        from starlette.requests import Request
        from starlette.responses import PlainTextResponse, RedirectResponse

        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        given = request.query_params.get("token")
        if given is not None and secrets.compare_digest(given.encode(), self.token.encode()):
            rest = {k: v for k, v in request.query_params.items() if k != "token"}
            resp = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
            return await self.sessions.set_cookie(resp, VIEW_TOKEN_COOKIE)(scope, receive, send)
        auth = request.headers.get("authorization", "")
        bearer = auth[7:] if auth.lower().startswith("bearer ") else ""
        if not (self.sessions.valid(request.cookies.get(VIEW_TOKEN_COOKIE))
                or bearer and secrets.compare_digest(bearer.encode(), self.token.encode())):
            return await PlainTextResponse("forbidden: the viewer needs its token (open the link it printed)",
                                           status_code=403)(scope, receive, send)
        return await self.app(scope, receive, send)


def create_view_app(index: Index, *, token: str | None = None, allowed_hosts: list[str] | None = None):
    """The ASGI app over `index`: GET pages only, behind the same token, host and header rules as `serve`."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response
    from starlette.concurrency import run_in_threadpool
    from starlette.routing import Route

    from human_judging.app import LOOPBACK_HOSTS, SecurityHeaders

    from human_judging.live import REFRESH_S, LiveIndex

    links = Links()
    if not index.ready.is_set():
        index.builder = threading.Thread(target=_build_quietly, args=(index,), name="oversight-bench-view-index", daemon=True)
        index.builder.start()
    #: the index the pages read, rebuilt while a run is in progress (`human_judging.live`)
    live = index.live = LiveIndex(index)

    def page(handler):
        """A page read from the current index, kept open while it is read; a look at the runs first."""
        async def answer(request: Request) -> Response:
            live.poll()
            with live.use() as current:
                return await handler(request, current)
        return answer

    def live_note() -> dict[str, Any] | None:
        """For a run in progress: the seconds its list and overview wait before reloading, and when
        the index they show was built."""
        if not live.in_progress():
            return None
        return {"refresh": REFRESH_S, "built": time.strftime("%H:%M:%S", time.localtime(live.built_at))}

    @page
    async def listing(request: Request, index: Index) -> Response:
        if not index.ready.is_set():
            rooms = await run_in_threadpool(index.preview, PAGE_SIZE)  # its own connection
            return HTMLResponse(render("viewer/list.html", links=links, static=False, indexing=True, rooms=rooms,
                                       n=len(rooms), total=None, page=1, n_pages=1, params={}, labels=index.labels,
                                       flags=FLAGS, facets={}, seconds=0))
        if index.error is not None:
            return HTMLResponse(render("viewer/missing.html", links=links, what=f"index ({index.error})"), status_code=500)
        params = _list_params(request, "page")
        return HTMLResponse(render("viewer/list.html", links=links, static=False, live=live_note(),
                                   **list_context(index, params)))

    # a room, run or question page waits for the index and reads the stores: in a worker thread, so
    # the event loop (and with it the list, answered from `preview` while indexing) is never held up
    reading = threading.Lock()  # the stores' connections are read by one page at a time, as before

    def room_sync(index: Index, room_id: str, params: dict[str, str]) -> Response:
        index.ready.wait()
        room = index.by_id.get(room_id) if index.error is None else None
        if room is None:
            return HTMLResponse(render("viewer/missing.html", links=links, what="room"), status_code=404)
        with reading:
            view = index.room_view(room)
        return HTMLResponse(render("viewer/room.html", links=links, v=view, nav=room_nav(index, room, params)))

    def run_sync(index: Index, n: str) -> Response:
        index.ready.wait()
        try:
            i = int(n) - 1
        except ValueError:
            i = -1
        if index.error is not None or not 0 <= i < len(index.runs):
            return HTMLResponse(render("viewer/missing.html", links=links, what="run"), status_code=404)
        with reading:
            overview = index.overview(i)
        return HTMLResponse(render("viewer/run.html", links=links, o=overview, static=False, live=live_note()))

    def question_sync(index: Index, key: str) -> Response:
        index.ready.wait()
        with reading:
            view = index.question_view(key) if index.error is None else None
        if view is None:
            return HTMLResponse(render("viewer/missing.html", links=links, what="question"), status_code=404)
        return HTMLResponse(render("viewer/question.html", links=links, v=view))

    @page
    async def room_page(request: Request, index: Index) -> Response:
        return await run_in_threadpool(room_sync, index, request.path_params["room"], _list_params(request))

    @page
    async def question_page(request: Request, index: Index) -> Response:
        return await run_in_threadpool(question_sync, index, request.path_params["key"])

    @page
    async def run_page(request: Request, index: Index) -> Response:
        return await run_in_threadpool(run_sync, index, request.path_params["n"])

    async def style(request: Request) -> Response:
        return Response((TEMPLATES / "viewer" / "view.css").read_text(), media_type="text/css")

    routes = [Route("/", listing), Route("/room/{room}", room_page), Route("/question/{key}", question_page),
              Route("/run/{n}", run_page), Route("/view.css", style)]
    middleware = [Middleware(SecurityHeaders)]
    if token:
        middleware.append(Middleware(TokenGate, token=token))
    middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or LOOPBACK_HOSTS))
    return Starlette(routes=routes, middleware=middleware)


# -- the static export -------------------------------------------------------------------------------


