"""The static leaderboard page, opened in headless Chromium: the table and one transcript as rendered."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile

import pytest

from oversight_bench.analysis.leaderboard import build_leaderboard, render_passages
from oversight_bench.analysis.synthetic import make_crossplay, make_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def dump_dom(url: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        res = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True, text=True, timeout=90)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    base = tmp_path_factory.mktemp("lb")
    run = make_run(base / "run", n_questions=4, judge="sim:judge-a")
    run2 = make_run(base / "run2", n_questions=4, judge="sim:judge-b", seed=1)
    xp = make_crossplay(base / "xp", {"sim:agent": 50.0, "other": -50.0}, n_games=80)
    res = build_leaderboard([run, run2, xp], base / "leaderboards")
    return base / "leaderboards", res


def test_results_json_and_markdown(board):
    out, res = board
    data = json.loads((out / "results.json").read_text())
    assert data["schema"] == "oversight-bench/leaderboard/v1"
    row = next(r for r in data["rows"] if r["level"] == "task" and r["protocol"] == "debate" and r["agent"] == "sim:agent")
    for k in ("judge", "agent", "protocol", "task", "task_type", "n", "accuracy", "ci_low", "ci_high", "invalid_rate",
              "calls_per_question", "tokens_per_question", "elo", "transcripts", "provenance"):
        assert k in row
    assert row["elo"] is not None
    qa = [r for r in data["rows"] if r["protocol"] == "qa_without_article" and r["agent"] == "sim:agent"]
    assert qa and all(r["elo"] is None for r in qa)  # no debater speaks in QA
    prov = row["provenance"][0]
    assert prov["seed"] == 0 and prov["commit"] == "synthetic" and prov["versions"] and prov["judge"] == row["judge"]
    assert (out / row["transcripts"]).exists()
    md = (out / "leaderboard.md").read_text()
    assert "| judge | agent | protocol |" in md and "sim:judge-b" in md


def test_render_passages_escapes_and_highlights():
    html = render_passages("<script>x</script> <v_passage>ok</v_passage> <u_passage>no</u_passage>")
    assert "<script>" not in html
    assert '<span class="v-passage"' in html and '<span class="u-passage"' in html


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_table_rendered_in_chromium(board):
    out, res = board
    dom = dump_dom((out / "index.html").resolve().as_uri())
    rows = re.findall(r'<tr class="row" data-protocol="([^"]+)" data-task-type="([^"]+)">', dom)
    expected = [r for r in res["rows"] if r["level"] == "task_type"]
    assert len(rows) == len(expected) > 0
    assert "sim:judge-b" in dom and 'class="c-accuracy"' in dom
    # default sort: accuracy descending
    accs = [float(a) for a in re.findall(r'<td class="c-accuracy">([0-9.]+)</td>', dom)]
    assert accs == sorted(accs, reverse=True)
    # filters, preset through the URL
    dom = dump_dom((out / "index.html").resolve().as_uri() + "?protocol=debate&type=closed&level=task")
    rows = re.findall(r'<tr class="row" data-protocol="([^"]+)" data-task-type="([^"]+)">', dom)
    assert rows and set(rows) == {("debate", "closed")}
    n_expected = sum(1 for r in res["rows"] if r["level"] == "task" and r["protocol"] == "debate" and r["task_type"] == "closed")
    assert len(rows) == n_expected


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_transcript_page_rendered_in_chromium(board):
    out, res = board
    row = next(r for r in res["rows"] if r["level"] == "task" and r["protocol"] == "debate" and r["task"] == "quality"
               and r["agent"] == "sim:agent")
    dom = dump_dom((out / row["transcripts"]).resolve().as_uri())
    assert dom.count('class="transcript"') >= 4
    assert re.search(r'<span class="v-passage" title="v_passage">saw the blue sands</span>', dom)
    assert re.search(r'<span class="u-passage" title="u_passage">red dust everywhere</span>', dom)
    assert "Round 1 · Alice (answer 1)" in dom and "✓ correct" in dom
    assert re.search(r'Judge sim:judge-\w: (answer [12] — (in)?correct|invalid)', dom)


def test_embedded_json_escapes_markup(tmp_path):
    """A model name holding `<!--<script>` and `</script>` cannot end the page's JSON early: `<`,
    `>` and `&` are escaped, the data parses back, and (with Chromium) the table still renders."""
    from oversight_bench.analysis.leaderboard import json_for_html

    evil = "sim:<!--<script>alert(1)</script>&amp;"
    assert "<" not in json_for_html([evil]) and ">" not in json_for_html([evil]) and "&" not in json_for_html([evil])
    assert json.loads(json_for_html([evil])) == [evil]
    run = make_run(tmp_path / "run", n_questions=4, judge=evil)
    build_leaderboard([run], tmp_path / "lb")
    page = (tmp_path / "lb" / "index.html").read_text()
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    assert any(r["judge"] == evil for r in json.loads(data))
    if CHROMIUM is None:
        return
    dom = dump_dom((tmp_path / "lb" / "index.html").resolve().as_uri())
    rows = re.findall(r'<tr class="row" data-protocol="([^"]+)"', dom)
    assert rows, "the table is blank"
    assert "sim:&lt;!--&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;" in dom


def test_transcript_shows_what_the_judge_saw_only():
    """A turn whose shown text is empty is shown empty: never its raw content, which holds the
    private thinking and could hold a forged <v_passage>."""
    from oversight_bench.analysis.leaderboard import transcript_html

    turn = {"round": 1, "role": "debater", "speaker": "Alice", "defends": 1, "shown": "",
            "content": "Thinking: private plan <v_passage>forged</v_passage>"}
    page = transcript_html({"job_key": "k", "judge": "j", "protocol": "debate", "task": "t", "answers": ["a", "b"]},
                           [turn], None)
    assert "forged" not in page and "private plan" not in page
