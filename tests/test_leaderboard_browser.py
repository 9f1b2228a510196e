"""The judge-centric leaderboard's page opened in headless Chromium: small cells hidden by default,
the human row, sorting by every column, filtering, the page fitting 1280-1400 px, rooms opening, no
script from transcript text. A file named test_*browser*.py: tests/conftest.py runs it in the
integration lane."""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

from leaderboard_board import EVIL_JUDGE, build_board
from leaderboard_board import judge_row as _judge
from oversight_bench.render.numbers import pct

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")


def dump_dom(url: str, width: int = 1400) -> str:
    with tempfile.TemporaryDirectory() as profile:
        res = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--window-size={width},900", f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True, text=True, timeout=90)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def pwned(dom: str) -> bool:
    """Did any injected script run (it would set a data-pwned attribute on <body>)?"""
    return re.search(r"<body[^>]*\sdata-pwned=", dom) is not None

def _rows(dom):
    return [(k, html_lib.unescape(j)) for k, j in re.findall(r'<tr class="row (model|human)" data-judge="([^"]*)">', dom)]


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return build_board(tmp_path_factory.mktemp("lb"))


def _fits(page: Path, width: int, query: str = "") -> tuple[int, int]:
    """(the page's scroll width, the window's width) in Chromium at `width` px, with small cells shown
    and every toggle open."""
    probe = page.with_name(f"probe-{width}.html")
    probe.write_text(page.read_text().replace("</body>", (
        "<script>document.querySelectorAll('details').forEach(d => d.open = true);"
        "if (!document.getElementById('f-small').checked) document.getElementById('f-small').click();"
        "document.body.dataset.fit = document.documentElement.scrollWidth + 'x' + window.innerWidth;</script></body>")))
    try:
        dom = dump_dom(probe.resolve().as_uri() + query, width=width)
    finally:
        probe.unlink()
    return tuple(map(int, re.search(r'data-fit="(\d+)x(\d+)"', dom).groups()))


@needs_chromium
@pytest.mark.parametrize("width", [1280, 1400])
def test_the_committed_board_fits_the_window(tmp_path, width):
    """The committed leaderboard's table, drawn by this code, with small cells shown and every toggle
    open, is no wider than a 1280 or 1400 px window (no horizontal scrolling)."""
    from helpers import REPO
    from oversight_bench.render.leaderboard import render_index

    res = json.loads((REPO / "leaderboards" / "results.json").read_text())
    for row in res["judges"]:  # a board of the earlier schema: its one reference as a list
        for c in row["cells"].values():
            if "reference" in c:
                c["references"] = [c.pop("reference")]
    (tmp_path / "index.html").write_text(render_index(res))
    scroll, inner = _fits(tmp_path / "index.html", width)
    assert inner == width and scroll <= inner, (scroll, inner)


@needs_chromium
@pytest.mark.parametrize("width", [1280, 1400])
def test_page_fits_the_window(board, width):
    """This board holds 17 columns: shown by one scope (as the filter does), it fits too."""
    out, _ = board
    scroll, inner = _fits(out / "index.html", width, "?scope=extractive")
    assert inner == width and scroll <= inner, (scroll, inner)


@needs_chromium
def test_default_view_hides_small_cells_and_shows_human_row(board):
    out, res = board
    dom = dump_dom((out / "index.html").resolve().as_uri())
    assert not pwned(dom)
    rows = _rows(dom)
    assert ("human", "human:nyu-2023") in rows and len(rows) == len(res["judges"])
    assert re.search(r'<table id="board" class="board sortable hide-small"', dom)
    assert re.search(r'small cells hidden', dom)
    cell = _judge(res, "sim:judge-a")["cells"]["debate · extractive"]
    shown_acc = re.search(rf'<a class="acc" href="{re.escape(cell["rooms"])}" title="its rooms">([0-9.]+)</a>', dom).group(1)
    assert shown_acc == pct(cell["accuracy"])
    assert '<table id="elo" class="sortable">' in dom and '<img src="fig2_judges.png"' in dom
    assert re.search(r'<span id="count">[^<]*small cells hidden</span>', dom)
    shown = dump_dom((out / "index.html").resolve().as_uri() + "?small=1")
    assert re.search(r'<table id="board" class="board sortable"', shown)
    assert not re.search(r'<span id="count">[^<]*small cells hidden</span>', shown)


def _visible_rows(dom):
    return [j for kind, j in _rows(dom)]


@needs_chromium
@pytest.mark.parametrize("key", ["qa_without_article · extractive", "_h0", "_h1", "judge"])
def test_sorting_by_any_column(board, key):
    """Each column sorts by its own values, both ways; rows without a value go last."""
    out, res = board

    def value(j):
        if key == "judge":
            return j["judge"]
        if key.startswith("_h"):
            return j["headlines"][int(key[2:])]["diff"]
        c = j["cells"].get(key)
        return None if c is None else (c.get("on_model_rooms") or c)["accuracy"] if j["kind"] == "human" else c["accuracy"]

    for direction in ("desc", "asc"):
        dom = dump_dom((out / "index.html").resolve().as_uri() + f"?sort={quote(key)}&dir={direction}&small=1")
        order = _visible_rows(dom)
        with_value = [j for j in res["judges"] if value(j) is not None]
        expected = sorted(with_value, key=value, reverse=direction == "desc")
        assert [value(_judge(res, n)) for n in order[:len(expected)]] == [value(j) for j in expected]
        assert all(value(_judge(res, n)) is None for n in order[len(expected):])
    assert len(with_value) >= 2


@needs_chromium
def test_filtering(board):
    out, res = board
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?protocol=debate")
    heads = re.findall(r'<th data-key="([^"]+)" data-col="[^"]+"[^>]*?(?: class="([^"]*)")?>', dom)
    shown = [k for k, cls in heads if "hidden-col" not in (cls or "")]
    assert shown and all(k.startswith("debate · ") for k in shown) and len(shown) < len(heads)
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?judge=judge-b")
    assert re.findall(r'<tbody class="judge model" data-judge="([^"]+)">', dom) and \
        [j for j in re.findall(r'<tbody class="judge \w+" data-judge="([^"]+)"(?! hidden)>', dom)] == ["sim:judge-b"]


@needs_chromium
def test_rooms_open_and_no_script_runs(board):
    out, res = board
    cell = _judge(res, "sim:judge-a")["cells"]["debate · extractive"]
    listing = dump_dom((out / cell["rooms"]).resolve().as_uri())
    room = re.search(r'<td class="question"><a href="(\.\./\.\./rooms/[0-9a-f]+\.html)"', listing).group(1)
    dom = dump_dom((out / cell["rooms"]).parent.joinpath(room).resolve().as_uri())
    assert '<span class="v-passage" title="v_passage">saw the blue sands</span>' in dom
    assert '<mark class="quoted"' in dom and "Round 1 · Alice (answer 1)" in dom
    evil = _judge(res, EVIL_JUDGE)["cells"]["debate · closed"]
    dom = dump_dom((out / evil["rooms"]).resolve().as_uri())
    assert not pwned(dom) and "&lt;script&gt;" in dom
    evil_room = re.search(r'<td class="question"><a href="(\.\./\.\./rooms/[0-9a-f]+\.html)"', dom).group(1)
    dom = dump_dom((out / evil["rooms"]).parent.joinpath(evil_room).resolve().as_uri())
    assert not pwned(dom) and "<img" not in dom
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?small=1")
    assert not pwned(dom)
    assert EVIL_JUDGE.replace("<", "&lt;").replace(">", "&gt;") in dom.replace("<wbr>", "")  # shown as text
