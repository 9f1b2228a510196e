"""The judge-centric leaderboard (results.json, Markdown, static page), the page opened in headless
Chromium: small cells hidden by default, the human row, sorting, filtering, transcripts, no script
from transcript text."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from urllib.parse import quote

import pytest

from oversight_bench.analysis.leaderboard import build_leaderboard, render_passages
from fake_runs import make_crossplay, make_run
from oversight_bench.questions import Question
from oversight_bench.rundir.store import Store

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
PWN = "document.body.setAttribute('data-pwned','{}')"
EVIL_JUDGE = f"sim:</script><script>{PWN.format(3)}</script>"


def dump_dom(url: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        res = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True, text=True, timeout=90)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def pwned(dom: str) -> bool:
    """Did any injected script run (it would set a data-pwned attribute on <body>)?"""
    return re.search(r"<body[^>]*\sdata-pwned=", dom) is not None


def _set_config(directory, **extra):
    st = Store.open(directory, write=True)
    try:
        st.write_config({**(st.read_config() or {}), **extra})
    finally:
        st.close()


def _evil_run(directory):
    """One debate whose question, turns and judge name try to run script."""
    q = Question(id="evil-1", task="mmlu", task_type="closed", question=f"<script>{PWN.format(1)}</script>?",
                 correct="a", incorrect="b")
    st = Store.open(directory, write=True)
    try:
        st.put_questions([q])
        text = f"<img src=x onerror=\"{PWN.format(2)}\"> <script>{PWN.format(4)}</script>"
        turns = [{"round": 1, "role": "debater", "speaker": "Alice", "content": text, "shown": text, "defends": 1, "extra": {}}]
        fields = {"judge": EVIL_JUDGE, "agent": "sim:agent", "protocol": "debate", "task": "mmlu", "question_id": q.id,
                  "assignment": None, "answer_order": "correct_first"}
        st.write_job("debate|mmlu|evil-1|-|correct_first", fields, turns,
                     {"raw": "Answer: 1", "answer": 1, "correct": True, "probs": None, "extra": {}, "correct_index": 1,
                      "answers": ["a", "b"]})
        st.write_config({"judge": EVIL_JUDGE, "agent": "sim:agent", "seed": 0})
    finally:
        st.close()
    return directory


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    from oversight_bench.commands import rejudge

    base = tmp_path_factory.mktemp("lb")
    big = make_run(base / "big", n_questions=40, judge="sim:judge-a")  # 80 extractive questions: cells n >= 64
    _set_config(big, deviations=["judge position-debiased (both orders averaged)"])
    small = make_run(base / "small", n_questions=4, judge="sim:judge-b", seed=1)
    xp = make_crossplay(base / "xp", {"sim:agent": 50.0, "other": -50.0}, n_games=80, judge="sim:xp-judge")
    human = make_run(base / "human", n_questions=3, judge="human:nyu-2023", seed=2)
    _set_config(human, **{"import": {"kind": "nyu-debate"}})
    rejudged = base / "rejudged"
    rejudge(str(human), "scripted:default", str(rejudged), progress=False)
    xp_rejudged = base / "xp-rejudged"  # cross-play re-judged by another judge: still no judge row
    rejudge(str(xp), "scripted:default,delay=0", str(xp_rejudged), progress=False)
    evil = _evil_run(base / "evil")
    res = build_leaderboard([big, small, xp, xp_rejudged, human, rejudged, evil], base / "leaderboards", n_resamples=500)
    return base / "leaderboards", res


def _judge(res, name):
    return next(j for j in res["judges"] if j["judge"] == name)


def test_results_json_is_judge_centric(board):
    out, res = board
    data = json.loads((out / "results.json").read_text())
    assert data["schema"] == "oversight-bench/leaderboard/v2"
    names = [j["judge"] for j in data["judges"]]
    assert "sim:xp-judge" not in names and not any("delay=0" in n for n in names)  # cross-play rates debaters only
    assert len(names) == len(set(names))  # one row per judge
    a = _judge(data, "sim:judge-a")
    cell = a["cells"]["debate · extractive"]
    for k in ("n", "accuracy", "ci_low", "ci_high", "small", "transcripts", "agents"):
        assert k in cell
    assert cell["n"] == 80 and not cell["small"] and a["cells"]["debate · closed"]["small"]
    assert (out / cell["transcripts"]).exists()
    assert [h["a"] + "-" + h["b"] for h in a["headlines"]] == ["debate-consultancy", "debate-qa_without_article"]
    assert all(h["n"] == 120 and 0 <= h["p_value"] <= 1 for h in a["headlines"])
    assert a["deviations"] == ["judge position-debiased (both orders averaged)"]
    assert a["provenance"][0]["commit"] == "synthetic"
    # the human judges are their own row, and the reference on the same rooms in the model's suite cell
    h = _judge(data, "human:nyu-2023")
    assert h["kind"] == "human" and "debate · suite:nyu-2023" in h["cells"]
    s = _judge(data, "scripted:default")["cells"]["debate · suite:nyu-2023"]
    assert s["reference"]["judge"] == "human:nyu-2023" and s["reference"]["n"] == s["n"]
    # 80 games, judged by two judges: Elo counts both (cross-play feeds only this table)
    assert data["elo"]["n_games"] == 160 and {p["player"] for p in data["elo"]["players"]} == {"sim:agent", "other"}
    assert data["figure"] == "fig2_judges.png" and (out / "fig2_judges.png").stat().st_size > 1000


def test_markdown_hides_small_cells_unless_asked(board, tmp_path):
    out, res = board
    md = (out / "leaderboard.md").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| sim:judge-b"))
    assert "n<64" in row and "⚠" not in row
    assert "| human:nyu-2023 (human reference)" in md and "## Debater Elo" in md
    from oversight_bench.analysis.leaderboard import markdown

    shown = markdown(res, show_small=True)
    row = next(ln for ln in shown.splitlines() if ln.startswith("| sim:judge-b"))
    assert "⚠" in row and "n<64" not in row


def test_render_passages_escapes_and_highlights():
    html = render_passages("<script>x</script> <v_passage>ok</v_passage> <u_passage>no</u_passage>")
    assert "<script>" not in html
    assert '<span class="v-passage"' in html and '<span class="u-passage"' in html


def _table(dom):
    return re.search(r'<table id="board">.*?</table>', dom, re.S).group(0)


def _rows(dom):
    return re.findall(r'<tr class="row (model|human)" data-judge="([^"]*)">', dom)


@needs_chromium
def test_default_view_hides_small_cells_and_shows_human_row(board):
    out, res = board
    dom = dump_dom((out / "index.html").resolve().as_uri())
    assert not pwned(dom)
    rows = _rows(dom)
    assert ("human", "human:nyu-2023") in rows and len(rows) == len(res["judges"])
    table = _table(dom)
    assert 'class="cell hidden-cell"' in table and "⚠" not in table
    assert re.search(r'small cells hidden', dom)
    # a large cell shows its accuracy, CI and n, and links to its transcripts
    cell = _judge(res, "sim:judge-a")["cells"]["debate · extractive"]
    shown_acc = re.search(rf'<a class="acc" href="{re.escape(cell["transcripts"])}">([0-9.]+)</a>', dom).group(1)
    assert abs(float(shown_acc) - 100 * cell["accuracy"]) <= 0.051
    assert f"n={cell['n']}" in dom
    assert '<table id="elo">' in dom and '<img src="fig2_judges.png"' in dom
    shown = dump_dom((out / "index.html").resolve().as_uri() + "?small=1")
    table = _table(shown)
    assert "hidden-cell" not in table and 'class="cell small-cell"' in table and "⚠" in table


@needs_chromium
def test_sorting_and_filtering(board):
    out, res = board
    key = "qa_without_article · extractive"
    dom = dump_dom((out / "index.html").resolve().as_uri() + f"?sort={quote(key)}&dir=desc&small=1")
    order = [j for _, j in _rows(dom)]
    with_cell = [j["judge"] for j in sorted((j for j in res["judges"] if key in j["cells"]),
                                            key=lambda j: -j["cells"][key]["accuracy"])]
    assert order[:len(with_cell)] == with_cell and len(with_cell) >= 2
    dom = dump_dom((out / "index.html").resolve().as_uri() + f"?sort={quote(key)}&dir=asc&small=1")
    assert [j for _, j in _rows(dom)][:len(with_cell)] == with_cell[::-1]
    # filters: protocol columns, and a judge name
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?protocol=debate")
    heads = re.findall(r'<th data-key="([^"]+)"', dom)
    cols = [h for h in heads if not h.startswith("_") and h != "judge"]
    assert cols and all(c.startswith("debate · ") for c in cols)
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?judge=judge-b")
    assert [j for _, j in _rows(dom)] == ["sim:judge-b"]


@needs_chromium
def test_transcripts_open_and_no_script_runs(board):
    out, res = board
    cell = _judge(res, "sim:judge-a")["cells"]["debate · extractive"]
    dom = dump_dom((out / cell["transcripts"]).resolve().as_uri())
    assert dom.count('class="transcript"') >= 4
    assert re.search(r'<span class="v-passage" title="v_passage">saw the blue sands</span>', dom)
    assert "Round 1 · Alice (answer 1)" in dom and "✓ correct" in dom
    evil = _judge(res, EVIL_JUDGE)["cells"]["debate · closed"]
    dom = dump_dom((out / evil["transcripts"]).resolve().as_uri())
    assert not pwned(dom) and "&lt;script&gt;" in dom and "<img" not in dom
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?small=1")
    assert not pwned(dom)
    assert EVIL_JUDGE.replace("<", "&lt;").replace(">", "&gt;") in dom  # shown as text


def test_embedded_json_escapes_markup(tmp_path):
    """A model name holding `<!--<script>` and `</script>` cannot end the page's JSON early: `<`,
    `>` and `&` are escaped and the data parses back (the Chromium test above renders such a name)."""
    from oversight_bench.analysis.leaderboard import json_for_html

    evil = "sim:<!--<script>alert(1)</script>&amp;"
    assert "<" not in json_for_html([evil]) and ">" not in json_for_html([evil]) and "&" not in json_for_html([evil])
    assert json.loads(json_for_html([evil])) == [evil]
    run = make_run(tmp_path / "run", n_questions=4, judge=evil)
    build_leaderboard([run], tmp_path / "lb")
    page = (tmp_path / "lb" / "index.html").read_text()
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    assert any(r["judge"] == evil for r in json.loads(data)["judges"])


def test_transcript_shows_what_the_judge_saw_only():
    """A turn whose shown text is empty is shown empty: never its raw content, which holds the
    private thinking and could hold a forged <v_passage>."""
    from oversight_bench.analysis.leaderboard import transcript_html

    turn = {"round": 1, "role": "debater", "speaker": "Alice", "defends": 1, "shown": "",
            "content": "Thinking: private plan <v_passage>forged</v_passage>"}
    page = transcript_html({"job_key": "k", "judge": "j", "protocol": "debate", "task": "t", "answers": ["a", "b"]},
                           [turn], None)
    assert "forged" not in page and "private plan" not in page


def test_transcript_fields_stay_text_even_inside_attributes():
    """Every field of a room (question, answers, role, speaker, budget marks, judge) is escaped where
    the page puts it, quotes included: a hostile value neither adds an element nor leaves its attribute."""
    from html.parser import HTMLParser

    from oversight_bench.analysis.leaderboard import transcript_html
    from oversight_bench.questions import Question

    evil = '" onmouseover="x()" data-x=\'<b>&amp;'
    tags, texts = [], []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, dict(attrs)))

        def handle_data(self, data):
            texts.append(data)

    turn = {"round": 1, "role": evil, "speaker": evil, "defends": 1, "shown": evil,
            "extra": {"budget": {"forced": True, "thinking_tokens": evil}}}
    q = Question(id="q", task="t", task_type="closed", question=evil, correct=evil, incorrect="b")
    page = transcript_html({"job_key": "k", "judge": evil, "protocol": evil, "task": "t", "answer_order": "correct_first",
                            "correct_index": 1, "answer": 1, "correct": True}, [turn], q, room_id=evil)
    Collect().feed(page)
    assert {t for t, _ in tags} <= {"div", "h3", "p", "ol", "li", "span", "br"} and "b" not in {t for t, _ in tags}
    assert all(set(a) <= {"class", "id", "title"} for _, a in tags)
    assert ("div", {"class": f"turn {evil}"}) in tags and tags[0] == ("div", {"class": "transcript", "id": evil})
    shown = "".join(texts)
    assert shown.count(evil) >= 5  # question, correct answer, speaker, turn text, judge: each as written
    assert "[forced: thinking budget spent after " + evil in shown


def test_leaderboard_command(tmp_path):
    from helpers import cli

    run = make_run(tmp_path / "run", n_questions=2, judge="sim:judge-a")
    res = cli("leaderboard", str(run), "--output", str(tmp_path / "lb"), "--show-small")
    assert res.exit_code == 0, res.output
    assert "leaderboard: 1 judges" in res.output
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| sim:judge-a"))
    assert "⚠" in row and "n<64" not in row  # --show-small: small cells shown, flagged
    res = cli("leaderboard", str(tmp_path / "missing"), "--output", str(tmp_path / "lb2"))
    assert res.exit_code == 2 and "does not exist" in res.output


def test_carry_keeps_unmeasured_cells_with_their_pages_and_headlines(tmp_path):
    """A build given a previous results.json keeps the cells none of its runs measures, marked with
    the build they came from, their transcript pages and their paired headlines; a cell that is
    measured again replaces the carried one."""
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
    assert all((lb / c["transcripts"]).exists() for c in carried["cells"].values())
    assert [h["diff"] for h in carried["headlines"]] == [h["diff"] for h in row_a["headlines"]]
    assert not any(c.get("carried") for c in rows["sim:judge-b"]["cells"].values())
    assert second["n_carried"] == len(row_a["cells"])
    assert "† carried from an earlier build" in (lb / "leaderboard.md").read_text()

    shutil.copy(lb / "results.json", saved)
    third = build_leaderboard([a], lb, n_resamples=200, carry=saved, force=True)
    rows = {r["judge"]: r for r in third["judges"]}
    assert not any(c.get("carried") for c in rows["sim:judge-a"]["cells"].values())
    assert all(c.get("carried") for c in rows["sim:judge-b"]["cells"].values())
    linked = {c["transcripts"] for r in third["judges"] for c in r["cells"].values()}
    assert {f"transcripts/{p.name}" for p in (lb / "transcripts").glob("*.html")} == linked  # no stale page left

    (tmp_path / "bad.json").write_text('{"schema": "something else"}')
    res = cli("leaderboard", str(a), "--output", str(tmp_path / "lb3"), "--carry", str(tmp_path / "bad.json"))
    assert res.exit_code == 2 and "--carry" in res.output and "results.json" in res.output
    assert not (tmp_path / "lb3").exists()  # validated before anything is written


def test_carry_keeps_elo_marked(tmp_path):
    xp = make_crossplay(tmp_path / "xp", {"sim:agent": 50.0, "other": -50.0}, n_games=12, judge="sim:xp-judge")
    run = make_run(tmp_path / "run", n_questions=3, judge="sim:judge-a")
    first = build_leaderboard([xp, run], tmp_path / "lb", n_resamples=100, figures=False)
    assert first["elo"] and "carried" not in first["elo"]
    shutil.copy(tmp_path / "lb" / "results.json", tmp_path / "prev.json")
    second = build_leaderboard([run], tmp_path / "lb", n_resamples=100, figures=False, carry=tmp_path / "prev.json",
                               force=True)
    assert second["elo"]["players"] == first["elo"]["players"] and second["elo"]["carried"]["generated"] == first["generated"]
    assert "Carried from the build of" in (tmp_path / "lb" / "leaderboard.md").read_text()


def test_carry_from_elsewhere_keeps_old_headlines_pages_and_checks_cells(tmp_path):
    """A carried row whose cells have no per-question scores (an older build) keeps its headlines,
    marked †; its pages are rendered again from the data kept beside the carried file when the output
    is elsewhere (a link to a page without data is dropped); `small` follows this build's threshold; a
    malformed carried cell is a one-line error, exit 2, before anything is written."""
    from helpers import cli

    a = make_run(tmp_path / "a", n_questions=6, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=6, judge="sim:judge-b", seed=1)
    first = build_leaderboard([a], tmp_path / "old", n_resamples=200, figures=False)
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


def test_judges_of_the_same_rooms_share_one_page(board):
    """A judge re-judging stored transcripts and the judges it re-judges share one page: each room
    once, with every judge's verdict under it (no transcript written once per judge)."""
    out, res = board
    human = _judge(res, "human:nyu-2023")["cells"]["debate · suite:nyu-2023"]
    model = _judge(res, "scripted:default")["cells"]["debate · suite:nyu-2023"]
    assert human["transcripts"] == model["transcripts"]
    page = (out / human["transcripts"]).read_text()
    rooms = re.findall(r'<div class="transcript" id="([^"]+)"', page)
    assert len(rooms) == len(set(rooms)) == human["n_records"]
    assert page.count("Judge human:nyu-2023:") == page.count("Judge scripted:default:") == len(rooms)


def test_debates_of_different_agents_are_different_rooms(tmp_path):
    """Rooms merge only when they hold the same debate: another agent's debate of the same question
    is its own room, with its own verdicts under it."""
    x = make_run(tmp_path / "x", n_questions=3, judge="sim:judge-a", agent="sim:agent-x")
    y = make_run(tmp_path / "y", n_questions=3, judge="sim:judge-a", agent="sim:agent-y", seed=1)
    y2 = make_run(tmp_path / "y2", n_questions=3, judge="sim:judge-b", agent="sim:agent-y", seed=1)
    res = build_leaderboard([x, y, y2], tmp_path / "lb", n_resamples=100, figures=False)
    cell = _judge(res, "sim:judge-a")["cells"]["debate · extractive"]
    page = (tmp_path / "lb" / cell["transcripts"]).read_text()
    ids = re.findall(r'id="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    rooms = page.split('<div class="transcript"')[1:]
    assert len(rooms) == min(40, cell["n_records"])  # judge-a's x and y debates; judge-b's y ones are among them
    for room in rooms:
        agent = re.search(r"agent (sim:agent-[xy])", room).group(1)
        assert room.count("Judge sim:judge-a:") == 1
        assert room.count("Judge sim:judge-b:") == (1 if agent == "sim:agent-y" else 0)


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
