"""The committed leaderboard (leaderboards/): every link of its page opens exactly the rooms the figure
it sits on counts (issue 36, item 4). Its runs are not in the repository, so this reads only what is
committed: index.html's links, results.json's counts, rooms-cells.json's decisions and the room lists
under rooms/cells/ (all their pages)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import REPO

BOARD = REPO / "leaderboards"
ROW = re.compile(r'<tr class="room" data-room="([0-9a-f]{16})">')
pytestmark = pytest.mark.skipif(not (BOARD / "rooms" / "cells.json").is_file(), reason="no committed room pages")


def _load(name: str):
    return json.loads((BOARD / name).read_text(encoding="utf-8"))


def _listed(link: str) -> list[str]:
    """The room ids of a list page and of every page its pager names."""
    first = BOARD / link
    html = first.read_text(encoding="utf-8")
    pages = [first] + [first.parent / p for p in dict.fromkeys(re.findall(r'<a href="(page-[0-9]+\.html)">', html))]
    return [rid for p in pages for rid in ROW.findall(p.read_text(encoding="utf-8"))]


def _shown(results: dict) -> dict[str, tuple[str, int]]:
    """Each link the page should show -> (what it is, how many rooms its figure counts)."""
    want = {}
    for j in results["judges"]:
        for key, c in j["cells"].items():
            if not c.get("rooms"):
                continue
            on = c.get("on_model_rooms") if j["kind"] == "human" else None
            if on:
                want[on["rooms"]] = (f"{j['judge']} · {key} (on the models' rooms)", on["n_records"])
            want[c["rooms"]] = (f"{j['judge']} · {key}", c["n_records"])
    return want


def test_every_link_on_the_committed_page_lists_exactly_its_figures_rooms():
    results = _load("results.json")
    page = (BOARD / "index.html").read_text(encoding="utf-8")
    links = {href for _, href in re.findall(r'<a class="(acc|all-rooms)" href="([^"]+)"', page)}
    want = _shown(results)
    assert links == set(want) and len(want) == 47
    manifest = _load("rooms/cells.json")["cells"]
    cells_file = _load("rooms-cells.json")["cells"]
    for link, (what, n) in want.items():
        cid = link.split("/")[2]
        listed = _listed(link)
        assert len(listed) == len(set(listed)) == n, f"{what}: {len(listed)} rooms listed, the figure counts {n}"
        assert manifest[cid]["rooms"] == n and manifest[cid]["missing"] == 0, what
        assert len(cells_file[cid]["decisions"]) == n, what
        assert all((BOARD / "rooms" / "rooms" / f"{rid}.html").is_file() for rid in listed), what


def test_the_human_debate_cell_links_the_72_rooms_it_shows_and_its_all_line_the_241():
    """The nyu-2023 debate cell shows 90.6 on the 72 rooms the models' cells count: its figure links those
    72 (the rooms of its 241 that the models' lists hold), the "all 241 rooms" line the 241."""
    results = _load("results.json")
    human = next(j for j in results["judges"] if j["judge"] == "human:nyu-2023")["cells"]["debate · suite:nyu-2023"]
    on = human["on_model_rooms"]
    assert (on["n_records"], human["n_records"], round(100 * on["accuracy"], 1)) == (72, 241, 90.6)
    mine, all_rooms = set(_listed(on["rooms"])), set(_listed(human["rooms"]))
    models = {rid for j in results["judges"] if j["kind"] == "model"
              for key, c in j["cells"].items() if key == "debate · suite:nyu-2023" for rid in _listed(c["rooms"])}
    assert len(mine) == 72 and mine == all_rooms & models and len(all_rooms) == 241
    page = (BOARD / "index.html").read_text(encoding="utf-8")
    assert f'<a class="acc" href="{on["rooms"]}" title="its rooms">90.6</a>' in page
    assert re.search(rf'<a class="all-rooms" href="{re.escape(human["rooms"])}"[^>]*>all 241 rooms:', page)
