"""The judge-centric leaderboard (results.json, Markdown, static page) read as files: every figure
and a sort value per cell, cells linking the viewer's pages of their rooms, hostile names kept text,
carried boards. The page opened in headless Chromium is tests/test_leaderboard_browser.py."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fake_runs import legacy_board, make_run
from human_judging import viewer
from leaderboard_board import SUBSET, build_board
from leaderboard_board import judge_row as _judge
from oversight_bench.publish.leaderboard import build_leaderboard
from oversight_bench.render.numbers import pct
from oversight_bench.render.pages import render_passages
from helpers import stored_records


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return build_board(tmp_path_factory.mktemp("lb"))


def test_results_json_is_judge_centric(board):
    out, res = board
    data = json.loads((out / "results.json").read_text())
    assert data["schema"] == "oversight-bench/leaderboard/v3"
    names = [j["judge"] for j in data["judges"]]
    assert "sim:xp-judge" not in names and not any("delay=0" in n for n in names)  # cross-play rates debaters only
    assert len(names) == len(set(names))  # one row per judge
    a = _judge(data, "sim:judge-a")
    cell = a["cells"]["debate · extractive"]
    for k in ("n", "accuracy", "ci_low", "ci_high", "small", "rooms", "agents", "deviations"):
        assert k in cell
    assert "transcripts" not in cell  # a built cell's evidence is its rooms
    assert cell["n"] == 80 and not cell["small"] and a["cells"]["debate · closed"]["small"]
    assert [h["a"] + "-" + h["b"] for h in a["headlines"]] == ["debate-consultancy", "debate-qa_without_article"]
    assert all(h["n"] == 120 and 0 <= h["p_value"] <= 1 for h in a["headlines"])
    assert a["deviations"] == cell["deviations"] == ["judge position-debiased (both orders averaged)"]
    assert a["provenance"][0]["commit"] == "synthetic"
    # the human judges are their own row; the model's suite cell has one reference per human judge, on its rooms
    h = _judge(data, "human:nyu-2023")
    assert h["kind"] == "human" and "debate · suite:nyu-2023" in h["cells"]
    s = _judge(data, "scripted:default")["cells"]["debate · suite:nyu-2023"]
    (ref,) = s["references"]
    assert ref["judge"] == "human:nyu-2023" and ref["n"] == s["n"] and "reference" not in s
    on = h["cells"]["debate · suite:nyu-2023"]["on_model_rooms"]
    assert on["n_records"] == s["n_records"] == len(SUBSET) < h["cells"]["debate · suite:nyu-2023"]["n_records"]
    assert on["accuracy"] == pytest.approx(ref["accuracy"])
    assert on["rooms"] != h["cells"]["debate · suite:nyu-2023"]["rooms"]  # the figure shown links its own rooms
    n_on = sum(1 for j in data["judges"] for c in j["cells"].values() if (c.get("on_model_rooms") or {}).get("rooms"))
    assert n_on == 1 and data["rooms"] == {"cells_file": "rooms-cells.json", "folder": "rooms", "written": True,
                                           "n_cells": sum(len(j["cells"]) for j in data["judges"]) + n_on}
    # 80 games, judged by two judges: Elo counts both (cross-play feeds only this table)
    assert data["elo"]["n_games"] == 160 and {p["player"] for p in data["elo"]["players"]} == {"sim:agent", "other"}
    assert data["figure"] == "fig2_judges.png" and (out / "fig2_judges.png").stat().st_size > 1000


def test_markdown_hides_small_cells_unless_asked(board, tmp_path):
    out, res = board
    md = (out / "leaderboard.md").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| sim:judge-b"))
    assert "n<64" in row and "⚠" not in row
    assert "| human:nyu-2023 (human reference)" in md and "## Debater Elo" in md
    assert "[results.json](results.json)" in md
    from oversight_bench.render.leaderboard import markdown

    shown = markdown(res, show_small=True)
    row = next(ln for ln in shown.splitlines() if ln.startswith("| sim:judge-b"))
    assert "⚠" in row and "n<64" not in row


def test_render_passages_escapes_and_highlights():
    html = render_passages("<script>x</script> <v_passage>ok</v_passage> <u_passage>no</u_passage>")
    assert "<script>" not in html
    assert '<span class="v-passage"' in html and '<span class="u-passage"' in html


class Page(HTMLParser):
    """The judge table as the page holds it: head keys, and per judge (one <tbody> each) its cells'
    data-key -> (data-sort, classes, link), and the texts of its toggle."""

    def __init__(self, html):
        super().__init__()
        self.heads, self.rows, self.stack, self.cell, self.details, self.depth = [], [], [], None, None, 0
        self.in_board = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.in_board = a.get("id") == "board"
        if not self.in_board:
            return
        if tag == "th":
            self.heads.append(a)
        elif tag == "tbody":
            self.rows.append({"judge": a["data-judge"], "kind": a["class"].split()[1], "cells": {}, "details": [],
                              "order": []})
        elif tag == "td" and self.rows and "data-key" in a:
            self.cell = {"sort": a.get("data-sort"), "class": a.get("class", ""), "link": None, "text": ""}
            self.rows[-1]["cells"][a["data-key"]] = self.cell
            self.rows[-1]["order"].append(a["data-key"])
        elif tag == "a" and self.cell is not None and self.cell["link"] is None:
            self.cell["link"] = a.get("href")
        elif tag == "details":
            self.details = self.rows[-1]["details"]

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_board = False
        elif tag == "td":
            self.cell = None
        elif tag == "details":
            self.details = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data
        if self.details is not None:
            self.details.append(data)


def test_page_is_html_with_every_figure_and_a_sort_value_per_cell(board):
    """Without any script the table is there; every column head has a key and every row a cell for it
    whose data-sort is that column's own value (the judge's name, the accuracy the cell shows, the
    headline difference); a human row's sort value is what it shows first (its models' rooms)."""
    out, res = board
    page = Page((out / "index.html").read_text())
    keys = [h["data-key"] for h in page.heads]
    cols = [c["key"] for c in res["columns"]]
    assert keys == ["judge", *cols, "_h0", "_h1"]
    assert [r["judge"] for r in page.rows] == [j["judge"] for j in res["judges"]]
    for row, j in zip(page.rows, res["judges"]):
        assert row["order"] == keys
        assert row["cells"]["judge"]["sort"] == j["judge"]
        for key in cols:
            c = j["cells"].get(key)
            shown = (c.get("on_model_rooms") or c) if c and j["kind"] == "human" else c
            want = "" if c is None or shown["accuracy"] is None else repr(float(shown["accuracy"]))
            assert row["cells"][key]["sort"] == want, (j["judge"], key)
            if c is not None:
                assert row["cells"][key]["text"].startswith(pct(shown["accuracy"]))
        for i, h in enumerate(j["headlines"]):
            assert row["cells"][f"_h{i}"]["sort"] == ("" if h["diff"] is None else repr(float(h["diff"])))


def test_every_cell_links_its_rooms_and_the_page_links_readme_and_results(board, tmp_path):
    out, res = board
    html = (out / "index.html").read_text()
    assert 'href="results.json"' in html and 'href="rooms/index.html"' in html
    assert 'id="readme-link"' not in html  # no README in this folder: no dead link
    page = Page(html)
    for row, j in zip(page.rows, res["judges"]):
        for key, c in j["cells"].items():
            assert row["cells"][key]["link"] == ((c.get("on_model_rooms") or {}).get("rooms") or c["rooms"])
    readme = tmp_path / "with-readme"
    shutil.copytree(out, readme, ignore=shutil.ignore_patterns("rooms"))
    (readme / "README.md").write_text("what this board is")
    small = make_run(tmp_path / "r", n_questions=2, judge="sim:judge-c")
    build_leaderboard([small], readme, n_resamples=50, figures=False, force=True)
    again = (readme / "index.html").read_text()
    assert '<a href="README.md" id="readme-link">README</a>' in again and "[README.md](README.md)" in (readme / "leaderboard.md").read_text()


def test_readable_at_1280_to_1400_px(board):
    """Nothing forces the page wider than its window: no fixed widths or no-wrap in its CSS, long names
    can break, and each judge's deviations and flags sit behind a toggle of its own (a <details> in a
    row of its own, spanning the table) instead of a column."""
    out, res = board
    html = (out / "index.html").read_text()
    css = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    assert "nowrap" not in css and not re.search(r"(?<!max-)width:\s*\d+px", css)
    assert int(re.search(r"body\{[^}]*max-width:(\d+)px", css).group(1)) <= 1400
    assert "<wbr>" in html
    page = Page(html)
    for row, j in zip(page.rows, res["judges"]):
        text = " ".join(row["details"])
        assert all(d in text for d in j["deviations"])
        assert all(f"⚑ {k}: " in text for k, c in j["cells"].items() if c.get("flagged"))
    assert html.count('<details class="devs">') == len(res["judges"])
    assert re.search(r'<tr class="more"><td colspan="(\d+)">', html).group(1) == str(1 + len(res["columns"]) + 2)
    assert "deviations from the paper</th>" not in html  # no column of them



def test_hostile_names_stay_text_in_the_page(tmp_path):
    """A model name holding `<!--<script>`, `</script>` and quotes is text wherever the page puts it
    (cell text, data-judge and data-sort attributes, link titles): no element added, no attribute left."""
    evil = "sim:<!--<script>alert(1)</script>&amp;\" onclick=\"x()"
    run = make_run(tmp_path / "run", n_questions=4, judge=evil)
    build_leaderboard([run], tmp_path / "lb", figures=False)
    html = (tmp_path / "lb" / "index.html").read_text()
    tags = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, dict(attrs)))

    Collect().feed(html)
    assert [t for t, _ in tags].count("script") == 1  # the page's own
    assert not any("onclick" in a for _, a in tags)
    assert ("tbody", {"class": "judge model", "data-judge": evil}) in tags
    assert any(a.get("data-sort") == evil for _, a in tags)


def test_carried_page_fields_stay_text_even_inside_attributes():
    """Every field of a carried page's room (question, answers, role, speaker, budget marks, judge) is
    escaped where the page puts it, quotes included: a hostile value neither adds an element nor leaves
    its attribute; verified passages are highlighted and cut turns marked."""
    from oversight_bench.render.pages import render_page

    evil = '" onmouseover="x()" data-x=\'<b>&amp;'
    tags, texts = [], []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, dict(attrs)))

        def handle_data(self, data):
            texts.append(data)

    room = {"id": evil, "question": evil, "protocol": evil, "task": "t", "assignment": "–", "answer_order": "correct_first",
            "agent": evil, "answers": [{"text": evil, "correct": True}, {"text": "b", "correct": False}],
            "turns": [{"role": evil, "round": 1, "speaker": evil, "defends": 1, "marks": ["[cut at 90 tokens]", evil],
                       "text": evil + " <v_passage>saw it</v_passage>"}],
            "verdicts": [{"judge": evil, "answer": 1, "correct": True, "probs": [0.8, 0.2]}]}
    page = render_page("room.html.j2", room=room)
    Collect().feed(page)
    assert {t for t, _ in tags} <= {"div", "h3", "p", "ol", "li", "span", "br"} and "b" not in {t for t, _ in tags}
    assert all(set(a) <= {"class", "id", "title"} for _, a in tags)
    assert ("div", {"class": f"turn {evil}"}) in tags and tags[0] == ("div", {"class": "transcript", "id": evil})
    shown = "".join(texts)
    assert shown.count(evil) >= 5  # question, correct answer, speaker, turn text, judge: each as written
    assert '<span class="budget">[cut at 90 tokens]</span>' in page
    assert '<span class="v-passage" title="v_passage">saw it</span>' in page


def test_leaderboard_command(tmp_path):
    from helpers import cli

    run = make_run(tmp_path / "run", n_questions=2, judge="sim:judge-a")
    res = cli("leaderboard", str(run), "--output", str(tmp_path / "lb"), "--show-small")
    assert res.exit_code == 0, res.output
    assert "leaderboard: 1 judges" in res.output
    assert "view" not in res.output and f"under {tmp_path / 'lb' / 'rooms'}/cells/" in res.output  # no second command
    manifest = json.loads((tmp_path / "lb" / "rooms" / "cells.json").read_text())["cells"]
    data = json.loads((tmp_path / "lb" / "results.json").read_text())
    assert {c["rooms"] for c in data["judges"][0]["cells"].values()} == {v["link"].join(["rooms/", ""]) for v in manifest.values()}
    assert all((tmp_path / "lb" / "rooms" / v["link"]).is_file() and v["missing"] == 0 for v in manifest.values())
    assert "hide them all" not in res.output  # --show-small
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| sim:judge-a"))
    assert "⚠" in row and "n<64" not in row  # --show-small: small cells shown, flagged
    res = cli("leaderboard", str(tmp_path / "missing"), "--output", str(tmp_path / "lb2"))
    assert res.exit_code == 2 and "does not exist" in res.output


def test_carry_keeps_unmeasured_cells_says_why_they_have_no_rooms_and_keeps_headlines(tmp_path):
    """A build given a previous results.json keeps the cells none of its runs measures, marked with
    the build they came from and their paired headlines; their runs are not here, so they link no room
    pages and the page and the Markdown say why; a cell measured again replaces the carried one."""
    from helpers import cli

    a = make_run(tmp_path / "a", n_questions=6, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=6, judge="sim:judge-b", seed=1)
    lb = tmp_path / "lb"
    first = build_leaderboard([a], lb, n_resamples=200)
    row_a = first["judges"][0]
    assert all(c.get("per_question") for c in row_a["cells"].values())
    saved = tmp_path / "first.json"
    shutil.copy(lb / "results.json", saved)

    second = build_leaderboard([b], lb, n_resamples=200, carry=saved, force=True)
    rows = {r["judge"]: r for r in second["judges"]}
    carried = rows["sim:judge-a"]
    assert carried["cells"].keys() == row_a["cells"].keys()
    assert all(c["carried"]["generated"] == first["generated"] for c in carried["cells"].values())
    assert not any(c.get("rooms") or c.get("transcripts") for c in carried["cells"].values())
    assert all("whose runs were not given to this build" in c["no_link"] for c in carried["cells"].values())
    assert [h["diff"] for h in carried["headlines"]] == [h["diff"] for h in row_a["headlines"]]
    assert not any(c.get("carried") for c in rows["sim:judge-b"]["cells"].values())
    assert all(c["deviations"] == row_a["cells"][k]["deviations"] for k, c in carried["cells"].items())
    assert second["n_carried"] == len(row_a["cells"])
    cells_file = json.loads((lb / "rooms-cells.json").read_text())["cells"]
    assert {v["title"].split(" · ")[0] for v in cells_file.values()} == {"sim:judge-b"}  # carried cells have no rooms
    md = (lb / "leaderboard.md").read_text()
    assert "† carried from an earlier build" in md and "whose runs were not given to this build" in md
    page = Page((lb / "index.html").read_text())
    row = next(r for r in page.rows if r["judge"] == "sim:judge-a")
    assert all(row["cells"][k]["link"] is None and "no room pages" in row["cells"][k]["text"] for k in carried["cells"])
    assert "whose runs were not given to this build" in " ".join(row["details"])

    shutil.copy(lb / "results.json", saved)
    third = build_leaderboard([a], lb, n_resamples=200, carry=saved, force=True)
    rows = {r["judge"]: r for r in third["judges"]}
    assert not any(c.get("carried") for c in rows["sim:judge-a"]["cells"].values())
    assert all(c.get("rooms") for c in rows["sim:judge-a"]["cells"].values())
    assert all(c.get("carried") for c in rows["sim:judge-b"]["cells"].values())
    assert not (lb / "transcripts").exists()  # no page of an earlier build left behind

    (tmp_path / "bad.json").write_text('{"schema": "something else"}')
    res = cli("leaderboard", str(a), "--output", str(tmp_path / "lb3"), "--carry", str(tmp_path / "bad.json"))
    assert res.exit_code == 2 and "--carry" in res.output and "results.json" in res.output
    assert not (tmp_path / "lb3").exists()  # validated before anything is written


def test_carry_of_an_older_board_renders_its_pages_again(tmp_path):
    """A board of the earlier schema (v2: one `reference`, transcript pages with their data) is carried:
    its pages rendered again from their data, its reference read as a one-item `references`."""
    a = make_run(tmp_path / "a", n_questions=6, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=6, judge="sim:judge-b", seed=1)
    build_leaderboard([a], tmp_path / "old", n_resamples=200, figures=False)
    pages = legacy_board(tmp_path / "old")
    prev = json.loads((tmp_path / "old" / "results.json").read_text())
    next(iter(prev["judges"][0]["cells"].values()))["reference"] = {"judge": "human:x", "accuracy": 0.5, "n": 6, "p_value": 0.3}
    (tmp_path / "old" / "results.json").write_text(json.dumps(prev))
    res = build_leaderboard([b], tmp_path / "new", n_resamples=200, figures=False, carry=tmp_path / "old" / "results.json")
    carried = next(r for r in res["judges"] if r["judge"] == "sim:judge-a")
    assert all((tmp_path / "new" / c["transcripts"]).is_file() and not c.get("no_link") for c in carried["cells"].values())
    assert {(tmp_path / "new" / c["transcripts"]).name for c in carried["cells"].values()} == {p.name for p in pages}
    first = next(iter(carried["cells"].values()))
    assert first["references"] == [{"judge": "human:x", "accuracy": 0.5, "n": 6, "p_value": 0.3}] and "reference" not in first
    page = (tmp_path / "new" / first["transcripts"]).read_text()
    assert "an earlier build&#x27;s page" not in page and "A page carried from an earlier build" in page
    assert '<span class="budget">[cut at 90 tokens]</span>' in page and '<span class="v-passage"' in page
    html = (tmp_path / "new" / "index.html").read_text()
    assert f'href="{first["transcripts"]}" title="its transcripts (carried page)"' in html


# An earlier build's Elo table is never carried: tests/test_leaderboard_issue34.py::test_elo_is_never_carried.


def test_carry_from_elsewhere_keeps_old_headlines_pages_and_checks_cells(tmp_path):
    """A carried row whose cells have no per-question scores (an older build) keeps its headlines,
    marked †; its pages are rendered again from the data kept beside the carried file when the output
    is elsewhere (a link to a page without data is dropped); `small` follows this build's threshold; a
    malformed carried cell is a one-line error, exit 2, before anything is written."""
    from helpers import cli

    a = make_run(tmp_path / "a", n_questions=6, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=6, judge="sim:judge-b", seed=1)
    first = build_leaderboard([a], tmp_path / "old", n_resamples=200, figures=False)
    legacy_board(tmp_path / "old")
    prev = json.loads((tmp_path / "old" / "results.json").read_text())
    row = prev["judges"][0]
    for c in row["cells"].values():
        c.pop("per_question")
        c["small"] = False
    gone = next(iter(row["cells"].values()))
    (tmp_path / "old" / gone["transcripts"]).unlink()
    (tmp_path / "old" / gone["transcripts"]).with_suffix(".json").unlink()  # the page's data: it is rendered from it
    (tmp_path / "old" / "results.json").write_text(json.dumps(prev))

    res = build_leaderboard([b], tmp_path / "new", n_resamples=200, figures=False, carry=tmp_path / "old" / "results.json")
    carried = next(r for r in res["judges"] if r["judge"] == "sim:judge-a")
    assert [h["diff"] for h in carried["headlines"]] == [h["diff"] for h in first["judges"][0]["headlines"]]
    assert all(h.get("carried") for h in carried["headlines"] if h["diff"] is not None)
    assert all(c["small"] for c in carried["cells"].values())  # n = 6 < 64, whatever the file said
    kept = [c for c in carried["cells"].values() if c.get("transcripts")]
    assert len(kept) == len(carried["cells"]) - 1 and all((tmp_path / "new" / c["transcripts"]).is_file() for c in kept)
    (unlinked,) = [c for c in carried["cells"].values() if not c.get("transcripts")]
    assert "whose runs were not given to this build" in unlinked["no_link"]
    md = (tmp_path / "new" / "leaderboard.md").read_text()
    assert "n<64 †" in md

    bad = json.loads((tmp_path / "old" / "results.json").read_text())
    next(iter(bad["judges"][0]["cells"].values()))["accuracy"] = 1.7
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    out = cli("leaderboard", str(b), "--output", str(tmp_path / "lb3"), "--carry", str(tmp_path / "bad.json"))
    assert out.exit_code == 2 and "accuracy" in out.output and "judges.0.cells" in out.output
    assert len(out.output.strip().splitlines()) == 1 and not (tmp_path / "lb3").exists()
    bad = json.loads((tmp_path / "old" / "results.json").read_text())
    bad["elo"] = {"n_games": 3, "players": [{"player": "x"}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    out = cli("leaderboard", str(b), "--output", str(tmp_path / "lb3"), "--carry", str(tmp_path / "bad.json"))
    assert out.exit_code == 2 and "elo.players.0" in out.output


def _listed(out, cell):
    """The room ids a cell's exported list shows, over all its pages (following the pager)."""
    first = out / cell["rooms"]
    pages = [first] + sorted(first.parent.glob("page-*.html"))
    return [i for p in pages for i in re.findall(r'<tr class="room" data-room="([0-9a-f]+)">', p.read_text())]


def test_cells_link_to_exactly_the_rooms_they_count(board):
    """Every cell's link opens the viewer's list of exactly the rooms its decisions are in (the cells
    file names them), paged, all of them (no cap: a cell of 160 rooms lists 160), none missing."""
    out, res = board
    cells_file = json.loads((out / "rooms-cells.json").read_text())["cells"]
    manifest = json.loads((out / "rooms" / "cells.json").read_text())["cells"]
    for j in res["judges"]:
        for key, c in j["cells"].items():
            cid = c["rooms"].split("/")[2]
            decisions = cells_file[cid]["decisions"]
            assert cells_file[cid]["title"] == f"{j['judge']} · {key}"
            assert len(decisions) == c["n_records"] and {d[1] for d in decisions} == {j["judge"]}
            assert all(job.startswith(c["protocol"] + "|") for _, _, job in decisions)
            listed = _listed(out, c)
            assert len(listed) == len(set(listed)) and set(listed) == {viewer.room_id(job, "sim:agent") for _, _, job in decisions}
            assert manifest[cid]["missing"] == 0 and manifest[cid]["rooms"] == len(listed)
    big = _judge(res, "sim:judge-a")["cells"]["debate · extractive"]
    assert len(_listed(out, big)) == 160 > 40


def _room_agents(dirs) -> dict[tuple[str, str, str], str]:
    """(run folder, judge, job key) -> the agent of that decision's room, read from the stores."""
    from oversight_bench.rundir.store import Store

    out = {}
    for d in dirs:
        store = Store.open(d)
        try:
            for r in stored_records(store, "decision"):
                out[(str(Path(d).resolve()), r["judge"], r["job_key"])] = r.get("agent")
        finally:
            store.close()
    return out


def test_every_link_on_the_page_opens_exactly_the_rooms_its_figure_counts(board):
    """Walk every cell link of index.html (the figure's, and a human cell's "all N rooms" line): each
    opens a list (all its pages) whose rooms are exactly the rooms of the decisions behind that figure,
    as many as the figure's n_records: a human cell shows its figure on the models' rooms, so its main
    link lists those, not all of its rooms (the committed nyu-2023 debate cell showed 72 and listed 241)."""
    out, res = board
    page = (out / "index.html").read_text()
    links = re.findall(r'<a class="(acc|all-rooms)" href="([^"]+)"', page)
    cells_file = json.loads((out / "rooms-cells.json").read_text())["cells"]
    runs = {run for c in cells_file.values() for run, _, _ in c["decisions"]}
    agents = _room_agents([out / r for r in runs])
    want: dict[str, int] = {}
    for j in res["judges"]:
        for c in j["cells"].values():
            on = c.get("on_model_rooms") if j["kind"] == "human" else None
            if on:
                want[on["rooms"]] = on["n_records"]
                want[c["rooms"]] = c["n_records"]  # the "all N rooms" line
            else:
                want[c["rooms"]] = c["n_records"]
    assert sorted({h for _, h in links}) == sorted(want) and ("all-rooms", _judge(res, "human:nyu-2023")["cells"][
        "debate · suite:nyu-2023"]["rooms"]) in links
    for href, n in want.items():
        cid = href.split("/")[2]
        decisions = cells_file[cid]["decisions"]
        rooms = {viewer.room_id(job, agents[(str((out / run).resolve()), judge, job)]) for run, judge, job in decisions}
        listed = _listed(out, {"rooms": href})
        assert len(listed) == len(set(listed)) == len(rooms) == n, href
        assert set(listed) == rooms, href
    human = _judge(res, "human:nyu-2023")["cells"]["debate · suite:nyu-2023"]
    assert len(_listed(out, {"rooms": human["on_model_rooms"]["rooms"]})) == len(SUBSET) < human["n_records"]


def test_a_board_of_small_cells_says_they_are_all_hidden_and_how_to_show_them(tmp_path):
    from helpers import cli

    run = make_run(tmp_path / "run", n_questions=2, judge="sim:judge-a")
    res = cli("leaderboard", str(run), "--output", str(tmp_path / "lb"))
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if "hide them all" in ln)
    assert "n < 64" in line and "--show-small" in line and "show cells with n < 64" in line
    page = (tmp_path / "lb" / "index.html").read_text()
    note = re.search(r'<p class="all-hidden warn" id="all-hidden">([^<]+)</p>', page).group(1)
    assert "all are hidden" in note and "--show-small" in note and "show cells with n &lt; 64" in note
    assert "all are hidden" in (tmp_path / "lb" / "leaderboard.md").read_text()
    big = make_run(tmp_path / "big", n_questions=40, judge="sim:judge-b")  # some cells shown: no such note
    res = cli("leaderboard", str(run), str(big), "--output", str(tmp_path / "lb2"))
    assert res.exit_code == 0 and "hide them all" not in res.output
    assert 'id="all-hidden"' not in (tmp_path / "lb2" / "index.html").read_text()


def test_a_rebuild_replaces_the_room_pages_and_keeps_no_stale_one(tmp_path):
    """`leaderboard --force` writes its room pages again: a room or cell of the earlier build that this
    one lacks goes; a file that no export wrote is refused in one line, and stays (and nothing
    outside the board is touched)."""
    from helpers import cli

    a = make_run(tmp_path / "a", n_questions=2, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=2, judge="sim:judge-b", seed=1)
    lb = tmp_path / "lb"
    assert cli("leaderboard", str(a), str(b), "--output", str(lb)).exit_code == 0
    before = {p.name for p in (lb / "rooms" / "cells").iterdir()}
    (lb / "rooms" / "rooms" / "notes.txt").write_text("mine")
    board = (lb / "results.json").read_bytes()
    res = cli("leaderboard", str(a), "--output", str(lb), "--force")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1 and "rooms/notes.txt" in res.output
    assert (lb / "results.json").read_bytes() == board
    assert (lb / "rooms" / "rooms" / "notes.txt").read_text() == "mine"
    (lb / "rooms" / "rooms" / "notes.txt").rename(tmp_path / "notes.txt")
    res = cli("leaderboard", str(a), "--output", str(lb), "--force")
    assert res.exit_code == 0, res.output
    after = {p.name for p in (lb / "rooms" / "cells").iterdir()}
    assert after < before and all("judge-a" in n for n in after)
    linked = {f"{r}.html" for c in json.loads((lb / "rooms" / "cells.json").read_text())["cells"].values()
              for r in _listed(lb / "rooms", {"rooms": c["link"]})}
    assert {p.name for p in (lb / "rooms" / "rooms").glob("*.html")} == linked
    shutil.rmtree(lb / "rooms")
    (lb / "rooms").mkdir()
    (lb / "rooms" / "mine.txt").write_text("mine")  # a board whose rooms/ is no export: refused before any write
    before = (lb / "results.json").read_bytes()
    res = cli("leaderboard", str(a), "--output", str(lb), "--force")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1 and "no cells.json" in res.output
    assert (lb / "results.json").read_bytes() == before and [p.name for p in (lb / "rooms").iterdir()] == ["mine.txt"]


def test_cells_file_names_runs_relative_to_the_board(board):
    out, _ = board
    text = (out / "rooms-cells.json").read_text()
    data = json.loads(text)
    assert str(out.parent) not in text and data["back"] == {"link": "../index.html", "title": "leaderboard"}
    for cell in data["cells"].values():
        for run_dir, _, _ in cell["decisions"]:
            assert not run_dir.startswith("/") and (out / run_dir / "results.sqlite").is_file()
    listing = (out / "rooms" / "cells" / next(iter(data["cells"])) / "index.html").read_text()
    assert '<a class="back" id="back" href="../../../index.html">← leaderboard</a>' in listing


def test_judges_of_the_same_rooms_share_their_room_pages(board):
    """A judge re-judging stored transcripts and the judges it re-judges link the same room pages: the
    model's list is its rooms, the human row's all of theirs, and each room's page shows both verdicts."""
    out, res = board
    human = _judge(res, "human:nyu-2023")["cells"]["debate · suite:nyu-2023"]
    model = _judge(res, "scripted:default")["cells"]["debate · suite:nyu-2023"]
    mine, theirs = set(_listed(out, model)), set(_listed(out, human))
    assert len(mine) == len(SUBSET) and mine < theirs and len(theirs) == human["n_records"]
    for rid in mine:
        page = (out / "rooms" / "rooms" / f"{rid}.html").read_text()
        assert "<b>human:nyu-2023</b>" in page and "<b>scripted:default</b>" in page


def test_debates_of_different_agents_are_different_rooms(tmp_path):
    """Rooms are the same only when they hold the same debate: another agent's debate of the same
    question is its own room, listed by the cells of the judges that judged it."""
    x = make_run(tmp_path / "x", n_questions=3, judge="sim:judge-a", agent="sim:agent-x")
    y = make_run(tmp_path / "y", n_questions=3, judge="sim:judge-a", agent="sim:agent-y", seed=1)
    y2 = make_run(tmp_path / "y2", n_questions=3, judge="sim:judge-b", agent="sim:agent-y", seed=1)
    res = build_leaderboard([x, y, y2], tmp_path / "lb", n_resamples=100, figures=False)
    cells, back = viewer.read_cells_file(tmp_path / "lb" / "rooms-cells.json")
    viewer.export_static([x, y, y2], tmp_path / "lb" / "rooms", cells=cells, back=back)
    a = _listed(tmp_path / "lb", _judge(res, "sim:judge-a")["cells"]["debate · extractive"])
    b = _listed(tmp_path / "lb", _judge(res, "sim:judge-b")["cells"]["debate · extractive"])
    assert len(a) == 2 * len(b) and set(b) < set(a)
    for rid in a:
        page = (tmp_path / "lb" / "rooms" / "rooms" / f"{rid}.html").read_text()
        agent = re.search(r"agent (sim:agent-[xy])", page).group(1)
        assert page.count("<b>sim:judge-a</b>") == 1
        assert page.count("<b>sim:judge-b</b>") == (1 if agent == "sim:agent-y" else 0)


def _cell0(prev):
    return next(iter(prev["judges"][0]["cells"].values()))


@pytest.mark.parametrize("damage, where", [
    (lambda p: _cell0(p).update(n="70"), "n"),
    (lambda p: _cell0(p).update(per_question={"q": "1"}), "per_question"),
    (lambda p: _cell0(p).update(carried="x"), "carried"),
    (lambda p: _cell0(p).update(reference=3), "reference"),
    (lambda p: p["judges"][0]["headlines"].__setitem__(0, {"diff": 0.1}), "headlines"),
    (lambda p: p["judges"][0]["headlines"][0].update(diff="0.1"), "diff"),
    (lambda p: p.update(elo={"n_games": 2, "players": [{"player": "p", "games": 2, "rating": 1.0}]}), "ci_low"),
    (lambda p: p.update(elo={"n_games": 2, "players": [], "prior": 3}), "prior"),
])
def test_carry_rejects_each_malformed_field_before_writing(tmp_path, damage, where):
    """Every field the build reads from a carried file has its type checked first: a one-line
    error naming the field, exit 2, nothing written (never a traceback half-way)."""
    from helpers import cli

    a = make_run(tmp_path / "a", n_questions=3, judge="sim:judge-a")
    build_leaderboard([a], tmp_path / "old", n_resamples=100, figures=False)
    prev = json.loads((tmp_path / "old" / "results.json").read_text())
    damage(prev)
    (tmp_path / "bad.json").write_text(json.dumps(prev))
    out = cli("leaderboard", str(a), "--output", str(tmp_path / "lb"), "--carry", str(tmp_path / "bad.json"))
    assert out.exit_code == 2, out.output
    assert where in out.output and len(out.output.strip().splitlines()) == 1
    assert not (tmp_path / "lb").exists()


def test_carried_cells_without_quality_are_flagged_from_their_data(tmp_path):
    """A cell carried from a build that recorded no transcript quality: a debate or consultancy cell
    is flagged (its arguments cannot be checked) and leaves the headlines; a QA cell whose every
    question was right in exactly one answer order is flagged as a position picker's."""
    a = make_run(tmp_path / "a", n_questions=6, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=6, judge="sim:judge-b", seed=1)
    build_leaderboard([a], tmp_path / "old", n_resamples=200, figures=False)
    prev = json.loads((tmp_path / "old" / "results.json").read_text())
    row = prev["judges"][0]
    for c in row["cells"].values():
        c.pop("quality", None)
        c.pop("flagged", None)
    qa = next(c for c in row["cells"].values() if c["protocol"] == "qa_without_article")
    qa["per_question"] = dict.fromkeys(qa["per_question"], 0.5)
    (tmp_path / "prev.json").write_text(json.dumps(prev))
    out = build_leaderboard([b], tmp_path / "new", n_resamples=200, figures=False, carry=tmp_path / "prev.json")
    carried = next(r for r in out["judges"] if r["judge"] == "sim:judge-a")
    for c in carried["cells"].values():
        if c["protocol"] in ("debate", "consultancy"):
            assert c["flagged"][0].startswith("transcript quality not measured")
        elif c is not None and c["protocol"] == qa["protocol"] and c["scope"] == qa["scope"]:
            assert c["flagged"] == ["every one of its 6 questions right in exactly one of its two answer orders (a position picker)"]
    assert all(h["diff"] is None or not {"debate", "consultancy"} & {h["a"], h["b"]} for h in carried["headlines"])
    assert any(h.get("excluded") for h in carried["headlines"])


def test_carried_rows_declare_their_options_again_from_provenance(tmp_path):
    """A carried row's deviations are derived again from the options its runs recorded, so what an
    older build left undeclared (here a single agent cap and the judge temperature) is declared."""
    a = make_run(tmp_path / "a", n_questions=6, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=6, judge="sim:judge-b", seed=1)
    build_leaderboard([a], tmp_path / "old", n_resamples=200, figures=False)
    prev = json.loads((tmp_path / "old" / "results.json").read_text())
    row = prev["judges"][0]
    row["deviations"] = []
    for p in row["provenance"]:
        p["options"] = {"agent_max_tokens": 320, "judge_temperature": 0.0, "rounds": 3}
    (tmp_path / "prev.json").write_text(json.dumps(prev))
    out = build_leaderboard([b], tmp_path / "new", n_resamples=200, figures=False, carry=tmp_path / "prev.json")
    devs = next(r for r in out["judges"] if r["judge"] == "sim:judge-a")["deviations"]
    assert any(d.startswith("agent output cap 320 tokens") for d in devs)
    assert any(d.startswith("judge temperature 0.0") for d in devs) and not any(d.startswith("rounds") for d in devs)
