"""Web (issue 37.7): `view` answers the room list while it indexes, whatever room pages are waiting
for the index; the sign-in form accepts only a token this server issued, so a cookie planted by a
page on another loopback port (cookies are not port-bound) signs no one in."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from starlette.testclient import TestClient  # noqa: E402

from test_view import make_room_run  # noqa: E402
from test_web import app_for, make_study  # noqa: E402
from web_helpers import form_fields, make_source  # noqa: E402


def _serve(app):
    """A real uvicorn server on a free loopback port, in a thread; returns (port, stop)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)

    def stop():
        server.should_exit = True
        thread.join(10)
        sock.close()

    return sock.getsockname()[1], stop


def test_the_list_answers_while_a_room_page_waits_for_the_index(tmp_path, monkeypatch):
    from human_judging import viewer

    src = make_room_run(tmp_path / "run")
    release = threading.Event()
    real_build = viewer.Index._build

    def slow_build(self):
        release.wait(30)  # the index takes as long as the test says
        real_build(self)

    monkeypatch.setattr(viewer.Index, "_build", slow_build)
    index = viewer.Index([src], build=False)
    room = index.preview(1)[0].id
    port, stop = _serve(viewer.create_view_app(index))
    base = f"http://127.0.0.1:{port}"
    got: dict[str, object] = {}

    def fetch_room():
        with urllib.request.urlopen(f"{base}/room/{room}", timeout=60) as r:
            got["room"] = (r.status, r.read().decode())

    try:
        waiting = [threading.Thread(target=fetch_room) for _ in range(3)]  # three room pages waiting
        for t in waiting:
            t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        with urllib.request.urlopen(f"{base}/", timeout=5) as r:  # the old server blocked here
            listing = r.read().decode()
        assert time.monotonic() - t0 < 5 and 'id="indexing"' in listing
        assert "room" not in got  # still waiting for the index
        release.set()
        for t in waiting:
            t.join(30)
        assert got["room"][0] == 200
    finally:
        release.set()
        stop()
        index.close()


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return make_source(tmp_path_factory.mktemp("web3") / "src")


def test_a_signin_cookie_planted_from_another_port_signs_no_one_in(source, tmp_path):
    """Another loopback port's page can set `ob_signin=X` for 127.0.0.1 and post csrf=X: the double
    submit matches, but X is no token this server issued."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app = app_for(study)
        c = TestClient(app, follow_redirects=False)
        for planted in ("attacker-chosen-value", "abc.0123456789abcdef0123456789abcdef"):
            c.cookies.set("ob_signin", planted)
            r = c.post("/signin", data={"csrf": planted, "name": "mallory"})
            assert r.status_code == 403 and "ob_session" not in r.headers.get("set-cookie", ""), r.text
        # a token another server (another key: another `serve`) issued is refused too
        other = TestClient(app_for(study), follow_redirects=False)
        issued = form_fields(other.get("/").text)["csrf"]
        c.cookies.set("ob_signin", issued)
        assert c.post("/signin", data={"csrf": issued, "name": "mallory"}).status_code == 403
        # this server's own form still signs in
        fresh = TestClient(app, follow_redirects=False)
        token = form_fields(fresh.get("/").text)["csrf"]
        r = fresh.post("/signin", data={"csrf": token, "name": "sam"})
        assert r.status_code == 303 and "ob_session=" in r.headers.get("set-cookie", "")
    finally:
        study.close()


def test_a_signin_token_is_bound_to_the_servers_port(source, tmp_path):
    """The same server's token, presented as if to another port of it, does not verify."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app = app_for(study)
        a = TestClient(app, base_url="http://testserver:8001", follow_redirects=False)
        token = form_fields(a.get("/").text)["csrf"]
        b = TestClient(app, base_url="http://testserver:8002", follow_redirects=False)
        b.cookies.set("ob_signin", token)
        r = b.post("/signin", data={"csrf": token, "name": "mallory"})
        assert r.status_code == 403
    finally:
        study.close()


def test_a_signin_token_signs_in_once(source, tmp_path):
    """W-12: a token (cookie and form value) one client fetched signs in once; posted again, by that
    client or any other, it is refused."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app = app_for(study)
        fetcher = TestClient(app, follow_redirects=False)
        token = form_fields(fetcher.get("/").text)["csrf"]
        first = fetcher.post("/signin", data={"csrf": token, "name": "sam"})
        assert first.status_code == 303 and "ob_session=" in first.headers.get("set-cookie", "")
        for client in (TestClient(app, follow_redirects=False), TestClient(app, follow_redirects=False)):
            client.cookies.set("ob_signin", token)
            again = client.post("/signin", data={"csrf": token, "name": "mallory"})
            assert again.status_code == 403 and "ob_session" not in again.headers.get("set-cookie", ""), again.text
    finally:
        study.close()


@pytest.mark.parametrize("headers", [{"origin": "http://testserver:8999"}, {"origin": "null"},
                                     {"sec-fetch-site": "same-site"}, {"sec-fetch-site": "cross-site"},
                                     {"origin": "http://testserver:8999", "sec-fetch-site": "same-site"}])
def test_a_signin_posted_from_another_origin_is_refused(source, tmp_path, headers):
    """W-12, login CSRF: a page on another loopback port fetches a fresh token from this server, plants
    it as the victim's cookie (cookies ignore ports) and makes the victim's browser post it; the
    browser says where the form came from (Origin, Sec-Fetch-Site), and that is not this origin. The
    token stays unused: the victim's own sign-in with it still works."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app = app_for(study)
        attacker = TestClient(app, base_url="http://testserver:8765", follow_redirects=False)
        token = form_fields(attacker.get("/").text)["csrf"]
        victim = TestClient(app, base_url="http://testserver:8765", follow_redirects=False)
        victim.cookies.set("ob_signin", token)
        r = victim.post("/signin", data={"csrf": token, "name": "mallory"}, headers=headers)
        assert r.status_code == 403 and "ob_session" not in r.headers.get("set-cookie", ""), r.text
        same = {"origin": "http://testserver:8765", "sec-fetch-site": "same-origin"}
        ok = victim.post("/signin", data={"csrf": token, "name": "sam"}, headers=same)
        assert ok.status_code == 303 and "ob_session=" in ok.headers.get("set-cookie", ""), ok.text
    finally:
        study.close()


def test_a_browsers_own_form_under_no_referrer_signs_in(source, tmp_path):
    """The pages say no-referrer, so Chromium posts the sign-in form with Origin "null" and
    Sec-Fetch-Site: same-origin (tests/test_web_browser.py was refused so): that is this origin."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        client = TestClient(app_for(study), base_url="http://testserver:8765", follow_redirects=False)
        token = form_fields(client.get("/").text)["csrf"]
        ok = client.post("/signin", data={"csrf": token, "name": "sam"},
                         headers={"origin": "null", "sec-fetch-site": "same-origin"})
        assert ok.status_code == 303 and "ob_session=" in ok.headers.get("set-cookie", ""), ok.text
    finally:
        study.close()


def test_issued_signin_nonces_are_bounded(source, tmp_path, monkeypatch):
    """Sign-in forms fetched and never posted cost no memory without bound: the oldest token goes."""
    from human_judging import app as app_module

    monkeypatch.setattr(app_module, "MAX_PENDING_SIGNINS", 3)
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app = app_for(study)
        clients = [TestClient(app, follow_redirects=False) for _ in range(4)]
        tokens = [form_fields(c.get("/").text)["csrf"] for c in clients]
        assert clients[0].post("/signin", data={"csrf": tokens[0], "name": "a"}).status_code == 403  # dropped
        assert clients[3].post("/signin", data={"csrf": tokens[3], "name": "d"}).status_code == 303
    finally:
        study.close()
