"""The judging web app (Starlette): sign in, judge the assigned item, ask a live consultant questions;
the organiser's progress page.

Identity: where the organiser registered the study's judges (`serve --judges`), a judge signs in only
by their personal link (`/?key=SECRET`, checked against the stored hash); otherwise (the local
single-judge use on loopback) by a name. A session is a row in the study database: signing out
deletes it, so a copied cookie stops working. Every judge route acts on the session's own judge, and
a form's assignment id must be that judge's open one, so no judge sees or decides another's items.
The study token (`--token`) is the organiser's: it opens `/organiser` (`?token=` once, or
`Authorization: Bearer`), never a judge's pages. The organiser link's cookie holds a session this
server made (`LinkSessions`), never the token, which any other loopback server would receive.

Security: forms carry a per-session CSRF token (sign-in: a double-submit cookie whose value only
this server can have issued: a nonce and its HMAC under the server's own random key and its port,
so a cookie planted by a page on another loopback port, where cookies are shared, signs no one in;
the nonce is single-use and expires, so a token one client fetched signs in once, and no other
client after it; the `__Host-` prefix needs https, which a loopback study does not have). A POST
whose Origin is not this server's (or whose Sec-Fetch-Site is not same-origin) is refused: another
loopback port is the same *site* (SameSite cookies go along) but not the same origin. Cookies are
HttpOnly and SameSite=Strict; the pages run no script and a Content-Security-Policy forbids any.
Transcript text is escaped by Jinja2's autoescape (passages by `render_passages`, which escapes
first). The browser only ever gets an opaque assignment id: no job key, answer order, assignment or
correctness reaches it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import sys
import time
from collections import defaultdict
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from oversight_bench.api import BenchError, plugin_pages
from human_judging.study import Study

NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
SESSION, PRE_CSRF, TOKEN = "ob_session", "ob_signin", "ob_organiser"
MAX_QUESTION, MAX_REASON = 600, 2000
CSP = ("default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]

#: the pages, drawn by the core's one environment (its `passages` filter among them)
_pages = plugin_pages("human_judging", Path(__file__).parent / "templates",
                      {"timestamp": lambda t: time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))})


def _page(name: str, status: int = 200, **ctx) -> HTMLResponse:
    return HTMLResponse(_pages.render(f"human_judging/{name}", **ctx), status_code=status)


def _failure(exc: Exception) -> HTMLResponse:
    """A user error (409) or a failed agent call (502): one line on the page; nothing is lost, the
    judge can reload to try again."""
    if isinstance(exc, BenchError):
        return _page("error.html", 409, message=str(exc))
    # the details go to the operator's terminal only: a backend's message might quote the prompt (and its article)
    print(f"serve: agent call failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    return _page("error.html", 502, message=f"the agent model failed ({type(exc).__name__}); reload to try again")


class SecurityHeaders:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"),
                            (b"x-frame-options", b"DENY")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class SameOrigin:
    """Refuse a POST a page of another origin made: its browser says so in Origin (and Sec-Fetch-Site).
    A request without either (curl, a test client) is no cross-site one and passes. Origin "null"
    (what a browser sends under no-referrer) passes only with Sec-Fetch-Site: same-origin."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            headers = dict(scope.get("headers") or [])
            origin = headers.get(b"origin", b"").decode("latin-1")
            site = headers.get(b"sec-fetch-site", b"").decode("latin-1")
            own = f"{scope.get('scheme', 'http')}://{headers.get(b'host', b'').decode('latin-1')}"
            # under the pages' no-referrer policy a browser's own form POST says Origin "null"; its
            # Sec-Fetch-Site then tells whether the page was this server's
            null_but_ours = origin == "null" and site == "same-origin"
            if (origin and origin != own and not null_but_ours) or (site and site not in ("same-origin", "none")):
                await PlainTextResponse("forbidden: this form was sent from another origin", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: sign-in nonces issued and not yet used: at most this many (the oldest dropped), each for this long
MAX_PENDING_SIGNINS, SIGNIN_TTL_S = 10_000, 3600.0


class LinkSessions:
    """What a token link's cookie holds instead of the token (the organiser's page here, the viewer's
    `TokenGate`): a random session this process made, valid for `TTL_S`, at most `LIMIT` of them (the
    oldest dropped). Cookies ignore ports, so every server on 127.0.0.1 the browser visits receives
    the cookie; the token itself would open the page there as a Bearer token, a session opens
    nothing there and expires."""

    LIMIT, TTL_S = 1_000, 12 * 3600.0

    def __init__(self) -> None:
        self._began: dict[str, float] = {}

    def new(self) -> str:
        while len(self._began) >= self.LIMIT:
            self._began.pop(next(iter(self._began)))  # the oldest
        session = secrets.token_urlsafe(32)
        self._began[session] = time.monotonic()
        return session

    def valid(self, session: str | None) -> bool:
        began = self._began.get(session or "")
        return began is not None and time.monotonic() - began < self.TTL_S

    def set_cookie(self, response: Response, name: str) -> Response:
        response.set_cookie(name, self.new(), max_age=int(self.TTL_S), httponly=True, samesite="strict")
        return response


def _same(given: str | None, expected: str) -> bool:
    return bool(given) and secrets.compare_digest(given.encode(), expected.encode())


def create_app(study: Study, *, token: str | None = None, allowed_hosts: list[str] | None = None) -> Starlette:
    """The ASGI app over `study`; `token` opens the organiser's page (none: no organiser page).
    `allowed_hosts` guards against DNS rebinding (loopback names by default)."""
    locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)  # one request at a time per judge
    server_key = secrets.token_bytes(32)  # this server's: a sign-in token no other server (or page) can make
    pending: dict[str, float] = {}  # sign-in nonce -> when it was issued; used once, then gone
    organisers = LinkSessions()  # the organiser link's cookie: a session, never the token

    def is_organiser(request: Request) -> bool:
        """The organiser's session cookie, or the token as a Bearer header."""
        auth = request.headers.get("authorization", "")
        return organisers.valid(request.cookies.get(TOKEN)) or _same(auth[7:] if auth.lower().startswith("bearer ") else "", token)

    def _mac(request: Request, nonce: str) -> str:
        port = (request.scope.get("server") or ("", 0))[1]
        return hmac.new(server_key, f"{port}:{nonce}".encode(), hashlib.sha256).hexdigest()[:32]

    def signin_token(request: Request) -> str:
        nonce = secrets.token_urlsafe(18)
        while len(pending) >= MAX_PENDING_SIGNINS:
            pending.pop(next(iter(pending)))  # the oldest
        pending[nonce] = time.monotonic()
        return f"{nonce}.{_mac(request, nonce)}"

    def use_signin_token(request: Request, token: str) -> bool:
        """Whether `token` is one this server issued (on this port) and not yet used; it is used now."""
        nonce, _, mac = token.partition(".")
        if not (nonce and mac) or not secrets.compare_digest(mac.encode(), _mac(request, nonce).encode()):
            return False
        issued = pending.pop(nonce, None)
        return issued is not None and time.monotonic() - issued < SIGNIN_TTL_S

    def session_of(request: Request):
        return study.session(request.cookies.get(SESSION))

    def signed_in_as(request: Request, judge: str) -> Response:
        resp = RedirectResponse("/judge", status_code=303)
        study.end_session(request.cookies.get(SESSION))  # a browser holds one judge's session at a time
        resp.set_cookie(SESSION, study.new_session(judge), httponly=True, samesite="strict")
        resp.delete_cookie(PRE_CSRF)
        return resp

    async def index(request: Request) -> Response:
        key = request.query_params.get("key")
        if key is not None:  # a judge's personal link: sign in, drop the key from the address bar
            judge = study.judge_for_key(key)
            if judge is None:
                return _page("error.html", 403, message="This personal link is not valid (any more): "
                                                         "ask the study's organiser for yours.", back=False)
            return signed_in_as(request, judge)
        if session_of(request):
            return RedirectResponse("/judge", status_code=303)
        if study.judges():
            return _page("signin.html", personal=True)
        csrf = signin_token(request)
        resp = _page("signin.html", csrf=csrf, error=request.query_params.get("error"))
        resp.set_cookie(PRE_CSRF, csrf, httponly=True, samesite="strict")
        return resp

    async def signin(request: Request) -> Response:
        if study.judges():
            return PlainTextResponse("forbidden: judges of this study sign in with their personal link", status_code=403)
        form = await request.form()
        cookie = request.cookies.get(PRE_CSRF, "")
        if not secrets.compare_digest(str(form.get("csrf", "")).encode(), cookie.encode()) or not cookie \
                or not use_signin_token(request, cookie):  # another port's page set it, or it was used already
            return PlainTextResponse("forbidden: the form's CSRF token does not match; reload the page", status_code=403)
        name = str(form.get("name", "")).strip()
        if not NAME.match(name):
            return RedirectResponse("/?error=name", status_code=303)
        return signed_in_as(request, name)

    async def judge_page(request: Request) -> Response:
        sess = session_of(request)
        if sess is None:
            return RedirectResponse("/", status_code=303)
        judge = sess["judge"]
        async with locks[judge]:
            row = study.next_assignment(judge)
            done, total = study.progress(judge)
            if row is None:
                return _page("done.html", judge=judge, done=done, csrf=sess["csrf"])
            try:
                view = await study.view(judge, row)
            except Exception as exc:  # noqa: BLE001 - the agent model failed: say so, keep serving
                return _failure(exc)
        return _page("judge.html", v=view, judge=judge, done=done, total=total, csrf=sess["csrf"],
                     error=request.query_params.get("error"), chosen=_whole(request.query_params.get("choice")))

    def _whole(value) -> int | None:
        try:
            return int(str(value if value is not None else "").strip())
        except ValueError:
            return None

    async def _checked_form(request: Request):
        """(session, form, open assignment) for a POST, or an error response."""
        sess = session_of(request)
        if sess is None:
            return None, None, None, RedirectResponse("/", status_code=303)
        form = await request.form()
        if not secrets.compare_digest(str(form.get("csrf", "")).encode(), sess["csrf"].encode()):
            return None, None, None, PlainTextResponse("forbidden: the form's CSRF token does not match; reload the page",
                                                       status_code=403)
        row = study.current(sess["judge"])
        if row is None or not secrets.compare_digest(str(form.get("id", "")).encode(), row["id"].encode()):
            return None, None, None, RedirectResponse("/judge", status_code=303)  # answered already (another tab)
        return sess, form, row, None

    async def ask(request: Request) -> Response:
        sess, form, row, err = await _checked_form(request)
        if err:
            return err
        text = str(form.get("question", "")).strip()
        if not text or len(text) > MAX_QUESTION:
            return RedirectResponse("/judge?error=question", status_code=303)
        async with locks[sess["judge"]]:
            try:
                await study.ask(sess["judge"], study.current(sess["judge"]), text)
            except Exception as exc:  # noqa: BLE001
                return _failure(exc)
        return RedirectResponse("/judge", status_code=303)

    async def decide(request: Request) -> Response:
        sess, form, row, err = await _checked_form(request)
        if err:
            return err
        choice, confidence = _whole(form.get("choice")), _whole(form.get("confidence"))
        reason = str(form.get("reason", "")).strip()
        # the form does not let the browser block a submit (novalidate): a missing or bad field comes back
        # here and the page says which, keeping the chosen answer
        missing = ("choice" if choice not in (1, 2) else "confidence" if confidence is None or not 50 <= confidence <= 100
                   else "decision" if len(reason) > MAX_REASON else None)
        if missing:
            kept = f"&choice={choice}" if choice in (1, 2) else ""
            return RedirectResponse(f"/judge?error={missing}{kept}", status_code=303)
        async with locks[sess["judge"]]:
            row = study.current(sess["judge"])
            if row is None or row["id"] != form.get("id"):
                return RedirectResponse("/judge", status_code=303)
            try:
                await study.decide(sess["judge"], row, choice, confidence / 100, reason)
            except Exception as exc:  # noqa: BLE001
                return _failure(exc)
        return RedirectResponse("/judge", status_code=303)

    async def signout(request: Request) -> Response:
        sess = session_of(request)
        if sess is not None:
            form = await request.form()
            if not secrets.compare_digest(str(form.get("csrf", "")).encode(), sess["csrf"].encode()):
                return PlainTextResponse("forbidden: the form's CSRF token does not match", status_code=403)
            study.end_session(request.cookies.get(SESSION))
        resp = RedirectResponse("/", status_code=303)
        resp.delete_cookie(SESSION)
        return resp

    async def organiser(request: Request) -> Response:
        if not token:
            return PlainTextResponse("not found", status_code=404)
        given = request.query_params.get("token")
        if _same(given, token):  # the organiser's link: a session in a cookie (not the token), the address bar cleared
            return organisers.set_cookie(RedirectResponse("/organiser", status_code=303), TOKEN)
        if not is_organiser(request):
            return PlainTextResponse("forbidden: the organiser's page needs the study token (open the organiser link)",
                                     status_code=403)
        return _page("organiser.html", judges=study.overview(), items=len(study.items), reach=study.reach(), skipped=study.skipped,
                     registered=bool(study.judges()), per_judge=study.per_judge)

    async def style(request: Request) -> Response:
        return Response((Path(__file__).parent / "templates" / "style.css").read_text(), media_type="text/css")

    routes = [Route("/", index), Route("/signin", signin, methods=["POST"]), Route("/judge", judge_page),
              Route("/judge/ask", ask, methods=["POST"]), Route("/judge/decide", decide, methods=["POST"]),
              Route("/signout", signout, methods=["POST"]), Route("/organiser", organiser), Route("/style.css", style)]
    middleware = [Middleware(SecurityHeaders), Middleware(SameOrigin)]
    middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or LOOPBACK_HOSTS))
    return Starlette(routes=routes, middleware=middleware)
