"""`oversight-bench view`: the room list (filters, sorting, paging), the room and side-by-side pages,
the static export with its per-cell room lists, the token and loopback rules, and that a run is only
ever read (no byte or file of it changes)."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
from starlette.testclient import TestClient  # noqa: E402

from fake_runs import make_run  # noqa: E402
from helpers import cli, stored_records  # noqa: E402
from oversight_bench.api import CallRecord, DecisionRecord, RunReader, TurnRecord  # noqa: E402
from oversight_bench.questions import Question  # noqa: E402
from oversight_bench.rundir import WritableRun  # noqa: E402
from web_helpers import free_port, register_plugin  # noqa: E402

from human_judging import viewer  # noqa: E402

EVIL = "<script>alert('x')</script>"
ARTICLE = "The ship landed at dawn. Captain Vela saw the blue sands of the moon. Then she wrote a letter home."


def make_room_run(directory: Path, judge: str = "sim:judge-a", source_judge: bool = False) -> Path:
    """One debate room with everything a room page shows: a passage, a verified and an unverified
    quote, private thinking, a forced and a cut turn, an argument-less turn, judge probabilities and
    the judge's call; and a QA room with an invalid answer. The question text is hostile HTML."""
    run = WritableRun(directory)
    store = run.store
    try:
        run.begin({"judge": judge, "agent": "sim:agent", "commit": "t"}, {"kind": "synthetic", "judge": judge})
        q = Question(id="q1", task="quality", task_type="extractive", question=f"What did Vela see? {EVIL}",
                     correct="blue sands", incorrect="red dust", article=ARTICLE)
        store.put_questions([q])
        fields = {"judge": judge, "agent": "sim:agent", "protocol": "debate", "task": "quality", "question_id": "q1",
                  "assignment": None, "answer_order": "correct_first"}
        ctx = {k: fields[k] for k in ("protocol", "task", "question_id", "assignment", "answer_order")}
        turns = [
            {"round": 1, "role": "debater", "speaker": "Alice", "defends": 1,
             "content": "Thinking:\nPRIVATE-PLAN keep it short\nArgument: She <v_passage>saw the blue sands</v_passage>.",
             "shown": "She <v_passage>saw the blue sands</v_passage>.",
             "extra": {"model": "sim:agent", "budget": {"thinking_tokens": 50, "argument_tokens": 20, "forced": True,
                                                         "cut": False, "continued": "same generation"}}},
            {"round": 1, "role": "debater", "speaker": "Bob", "defends": 2,
             "content": "Argument: It was <u_passage>red dust everywhere</u_passage> " + EVIL,
             "shown": "It was <u_passage>red dust everywhere</u_passage> " + EVIL,
             "extra": {"model": "sim:agent", "budget": {"thinking_tokens": 10, "argument_tokens": 90, "forced": False,
                                                         "cut": True, "continued": None}}},
            {"round": 2, "role": "debater", "speaker": "Alice", "defends": 1, "content": "",
             "shown": "[no argument was given in this turn]", "extra": {"model": "sim:agent"}},
        ]
        if source_judge:  # an imported room's live judge asked between rounds; this judge's prompt leaves it out
            turns.insert(2, {"round": 1, "role": "judge", "speaker": "Judge", "extra": {"human": True},
                             "content": "SOURCE-JUDGE-QUESTION: which of you read the passage closely?"})
        store.put_call("a" * 64, model="sim:agent", request={"messages": [{"role": "user", "content": "argue as Alice"}]},
                       response={"texts": [turns[0]["content"]]}, context={"role": "agent", "tag": "round1/Alice", **ctx},
                       prompt_tokens=111, completion_tokens=22, latency_s=0.5)
        store.put_call("b" * 64, model=judge, request={"messages": [{"role": "user", "content": "JUDGE-PROMPT-MARKER"}]},
                       response={"texts": ["Answer: 1"]}, context={"role": "judge", "tag": "judge/probs", **ctx},
                       prompt_tokens=345, completion_tokens=3, latency_s=1.25)
        store.write_job("debate|quality|q1|-|correct_first", fields, turns,
                        {"raw": "Answer: 1", "answer": 1, "correct": True, "probs": [0.8, 0.2], "extra": {},
                         "correct_index": 1, "answers": ["blue sands", "red dust"]})
        store.write_job("qa_without_article|quality|q1|-|correct_first", {**fields, "protocol": "qa_without_article"}, [],
                        {"raw": "I cannot tell", "answer": None, "correct": None, "probs": None, "extra": {},
                         "correct_index": 1, "answers": ["blue sands", "red dust"]})
    finally:
        run.close()
    return directory


def snapshot(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def rows(html: str) -> list[str]:
    return re.findall(r'<tr class="room" data-room="([0-9a-f]+)">', html)


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def two_judges(tmp_path_factory):
    """The same synthetic transcripts judged by two judges (as `judge --from` stores them)."""
    base = tmp_path_factory.mktemp("view")
    a = make_run(base / "judge-a", judge="sim:judge-a", n_questions=6, seed=1)
    b = make_run(base / "judge-b", judge="sim:judge-b", n_questions=6, seed=2)
    return a, b


def client(*dirs, token=None) -> TestClient:
    return TestClient(viewer.create_view_app(viewer.Index(dirs), token=token), base_url="http://127.0.0.1")


def test_list_filters_sorts_and_pages(two_judges):
    a, b = two_judges
    index = viewer.Index([a, b])
    c = TestClient(viewer.create_view_app(index), base_url="http://127.0.0.1")
    everything = index.select({})
    # one row per room, with both judges' verdicts on it
    assert all({v.judge for v in r.verdicts} == {"sim:judge-a", "sim:judge-b"} for r in everything)
    page1 = c.get("/").text
    assert len(rows(page1)) == viewer.PAGE_SIZE and f"{len(everything)} of {len(everything)} rooms" in page1
    page2 = c.get("/?page=2").text
    assert set(rows(page2)).isdisjoint(rows(page1))
    # filters by column
    debate = c.get("/?protocol=debate").text
    assert rows(debate) and all(index.by_id[i].protocol == "debate" for i in rows(debate))
    assert all(index.by_id[i].task == "mmlu" for i in rows(c.get("/?task=mmlu").text))
    # judge wrong: every room shown has a wrong (or invalid) verdict of that judge, and every such room is shown
    wrong = rows(c.get("/?judge=sim:judge-b&wrong=1&page=1").text)
    expected = [r.id for r in everything if any(v.judge == "sim:judge-b" and (v.correct is False or v.answer is None)
                                                for v in r.verdicts)]
    assert wrong == expected[:viewer.PAGE_SIZE] and expected
    # judges disagree
    dis = index.select({"disagree": "1"})
    assert dis and all(len({v.answer for v in r.verdicts if v.answer}) == 2 for r in dis)
    assert len(dis) == sum(1 for r in everything if len({v.answer for v in r.verdicts if v.answer}) == 2)
    # free text over the question, its id and the job key
    hit = rows(c.get("/?q=(boolq 3)").text)
    assert hit and all("(boolq 3)" in index.by_id[i].question for i in hit)
    # sort by a column, both ways
    asc = [index.by_id[i].question for i in rows(c.get("/?sort=question").text)]
    desc = [index.by_id[i].question for i in rows(c.get("/?sort=-question").text)]
    assert asc == sorted(asc, key=str.lower) and desc == sorted(desc, key=str.lower, reverse=True) and asc[0] != desc[0]
    pc = [r.mean_p_correct() for r in index.select({"sort": "-p_correct"})]
    assert pc == sorted(pc, reverse=True)
    # sort links keep the filters
    assert 'href="?protocol=debate&amp;sort=question"' in debate


def test_preview_answers_before_the_index(two_judges):
    """While the index is built, the list's first page is read straight from the first run's store."""
    a, b = two_judges
    built = viewer.Index([a])
    pending = viewer.Index([a], build=False)
    assert not pending.ready.is_set()
    preview = pending.preview(10)
    assert [r.id for r in preview] == [r.id for r in built.rooms[:10]]
    assert [(r.flags, [(v.judge, v.answer, v.p) for v in r.verdicts]) for r in preview] == \
        [(r.flags, [(v.judge, v.answer, v.p) for v in r.verdicts]) for r in built.rooms[:10]]
    html = viewer.render("viewer/list.html", links=viewer.Links(), static=False, indexing=True, rooms=preview, n=10,
                         total=None, page=1, n_pages=1, params={}, labels=pending.labels, flags=viewer.FLAGS, facets={},
                         seconds=0)
    assert 'id="indexing"' in html and len(rows(html)) == 10 and 'id="filters"' not in html
    pending.build()
    assert pending.ready.is_set() and len(pending.rooms) == len(built.rooms)
    built.close()
    pending.close()


def test_room_page_shows_turns_thinking_quotes_verdicts_and_calls(tmp_path):
    src = make_room_run(tmp_path / "run")
    c = client(src)
    listing = c.get("/").text
    assert EVIL not in listing and "&lt;script&gt;" in listing
    debate = next(i for i in rows(listing) if "debate" in listing.split(f'data-room="{i}"')[1].split("</tr>")[0])
    row = listing.split(f'data-room="{debate}"')[1].split("</tr>")[0]
    assert all(f in row for f in ("forced", "cut", "empty")) and "sim:judge-a: 1 (0.80) ✓" in text_of(row)
    qa_row = listing.split('data-room="')[1:]
    assert any("invalid" in r.split("</tr>")[0] and "qa_without_article" in r.split("</tr>")[0] for r in qa_row)
    page = c.get(f"/room/{debate}").text
    assert EVIL not in page and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    # the passage, with the verified quote marked in it
    assert '<mark class="quoted" title="quoted by a turn (verified)">saw the blue sands</mark>' in page
    assert "1 verified, 1 unverified" in page
    # turns: shown text with verified/unverified spans, private thinking behind a toggle, budget marks
    assert '<span class="v-passage" title="v_passage">saw the blue sands</span>' in page
    assert '<span class="u-passage" title="u_passage">red dust everywhere</span>' in page
    assert re.search(r'<details class="thinking"><summary>private thinking.*?</summary><pre>PRIVATE-PLAN', page, re.S)
    assert "forced: thinking budget spent after 50 tokens" in page and "cut at 90 tokens" in page
    assert "no argument" in page
    # the judge's verdict, probabilities, tokens, timing and the exact request; the agent's call under its turn
    t = text_of(page)
    assert "answer 1 — correct ✓" in t and "P = 0.80 / 0.20" in t and "348 tokens, 1.25 s" in t
    assert "JUDGE-PROMPT-MARKER" in page and "argue as Alice" in page and "111 + 22 tokens" in t
    # side by side: the question across protocols and judges, linking back to the rooms
    side = re.search(r'href="(/question/[0-9a-f]+)"', page).group(1)
    sp = c.get(side).text
    assert "qa_without_article" in sp and "debate" in sp and f"/room/{debate}" in sp and "invalid" in sp
    assert c.get("/room/ffffffffffffffff").status_code == 404


def test_views_never_write_into_a_run(tmp_path):
    src = make_room_run(tmp_path / "run")
    before = snapshot(src)
    assert not any(n.endswith(("-wal", "-shm")) for n in before)
    c = client(src)
    room = rows(c.get("/").text)[0]
    assert c.get(f"/room/{room}").status_code == 200
    viewer.export_static([src], tmp_path / "site")
    assert snapshot(src) == before  # no byte changed, no file (-wal, -shm, lock) added
    with pytest.raises(Exception, match="never write into a run"):
        viewer.export_static([src], src / "site")


def test_read_only_copy(tmp_path):
    """On a read-only mount (where the test may mount one: root) the whole viewer works; everywhere,
    the run's files stay byte for byte as they were and no file is added."""
    src = make_room_run(tmp_path / "run")
    before = snapshot(src)
    ro = tmp_path / "ro"
    ro.mkdir()
    mounted = subprocess.run(["mount", "--bind", "-o", "ro", str(src), str(ro)], capture_output=True).returncode == 0 \
        if shutil.which("mount") and os.geteuid() == 0 else False
    target = ro if mounted else src
    try:
        if mounted:
            with pytest.raises(OSError):
                (ro / "probe").write_text("x")
        index = viewer.Index([target])
        view = index.room_view(next(r for r in index.rooms if r.protocol == "debate"))
        assert view["transcripts"][0]["turns"] and view["transcripts"][0]["judges"][0]["calls"]
        viewer.export_static([target], tmp_path / "site", index=index)
        index.close()
    finally:
        if mounted:
            subprocess.run(["umount", str(ro)], check=True)
    assert snapshot(src) == before


def test_static_export_pages_every_room_per_cell(two_judges, tmp_path):
    a, b = two_judges
    index = viewer.Index([a, b])
    judged_by_a = [r for r in index.rooms if r.protocol == "debate"]
    cells = {"a-debate": {"title": "sim:judge-a · debate", "decisions": [[str(a), "sim:judge-a", r.job_key] for r in judged_by_a]
                          + [[str(a), "sim:judge-a", "no-such-job"]]}}
    manifest = viewer.export_static([a, b], tmp_path / "site", cells=cells, page_size=5, index=index)
    site = tmp_path / "site"
    cell = manifest["a-debate"]
    assert cell["rooms"] == len(judged_by_a) > 40 // 5 and cell["missing"] == 1
    assert len(cell["pages"]) == -(-len(judged_by_a) // 5) and cell["link"] == "cells/a-debate/index.html"
    listed = [i for p in cell["pages"] for i in rows((site / p).read_text())]
    assert sorted(listed) == sorted(r.id for r in judged_by_a)  # exactly that judge's rooms, all of them
    first = (site / cell["link"]).read_text()
    assert 'href="page-2.html"' in first and 'href="../../rooms/' in first and 'href="../../view.css"' in first
    assert json.loads((site / "cells.json").read_text())["cells"]["a-debate"]["rooms"] == len(judged_by_a)
    for r in index.rooms:
        assert (site / "rooms" / f"{r.id}.html").is_file()
    room_html = (site / "rooms" / f"{judged_by_a[0].id}.html").read_text()
    assert "sim:judge-a" in room_html and "sim:judge-b" in room_html and 'href="../questions/' in room_html
    # without a cells file: one cell per judge, protocol and task
    default = viewer.export_static([a], tmp_path / "site2")
    assert {c["title"] for c in default.values()} == {f"sim:judge-a · {p} · {t}" for r in viewer.Index([a]).rooms
                                                      for p, t in [(r.protocol, r.task)]}
    index.close()


def test_token_and_loopback_rules(tmp_path):
    src = make_room_run(tmp_path / "run")
    gated = client(src, token="s3cret-token")
    assert gated.get("/").status_code == 403
    assert TestClient(gated.app, base_url="http://127.0.0.1").get("/", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
    resp = client(src).get("/")
    assert "script-src" not in resp.headers["content-security-policy"] and "default-src 'none'" in resp.headers["content-security-policy"]
    assert TestClient(client(src).app, base_url="http://evil.example").get("/").status_code == 400  # DNS rebinding
    register_plugin()
    res = cli("view", str(src), "--host", "0.0.0.0")
    assert res.exit_code == 2 and "--token" in res.output and len(res.output.strip().splitlines()) == 1


def test_the_viewer_link_cookie_is_a_session_not_the_token(tmp_path):
    """Issue 37 (probe 710): the link `?token=` set the token itself as a cookie, which every other
    server on 127.0.0.1 the browser visits receives (cookies ignore ports) and could replay as a Bearer
    token. The cookie holds a session this viewer made: it opens pages here, and nowhere else."""
    src = make_room_run(tmp_path / "run")
    gated, other = client(src, token="s3cret-token"), client(src, token="s3cret-token")
    browser = TestClient(gated.app, base_url="http://127.0.0.1", follow_redirects=False)
    link = browser.get("/?token=s3cret-token")
    session = browser.cookies.get(viewer.VIEW_TOKEN_COOKIE)
    assert link.status_code == 303 and session and "s3cret-token" not in link.headers.get("set-cookie", "")
    assert browser.get("/").status_code == 200
    assert TestClient(gated.app, base_url="http://127.0.0.1").get(
        "/", headers={"Authorization": f"Bearer {session}"}).status_code == 403
    assert TestClient(other.app, base_url="http://127.0.0.1", cookies={viewer.VIEW_TOKEN_COOKIE: session}).get("/").status_code == 403
    assert TestClient(gated.app, base_url="http://127.0.0.1",
                      cookies={viewer.VIEW_TOKEN_COOKIE: "s3cret-token"}).get("/").status_code == 403


def test_command_errors_are_one_line(tmp_path):
    register_plugin()
    (tmp_path / "empty").mkdir()
    res = cli("view", str(tmp_path / "empty"), "--export", str(tmp_path / "out"))
    assert res.exit_code == 2 and "not a run directory" in res.output and len(res.output.strip().splitlines()) == 1
    (tmp_path / "cells.json").write_text('{"cells": {"../x": {"decisions": []}}}')
    src = make_room_run(tmp_path / "run")
    res = cli("view", str(src), "--export", str(tmp_path / "out"), "--cells", str(tmp_path / "cells.json"))
    assert res.exit_code == 2 and "not a plain name" in res.output
    res = cli("view", str(src), "--export", str(tmp_path / "out"))
    assert res.exit_code == 0 and (tmp_path / "out" / "index.html").is_file()


def test_passage_marks_verified_quotes_across_line_breaks_and_curly_quotes():
    """A verified quote is marked in the passage even where the story breaks the line or curls the
    quote marks inside it (the importers verify quotes up to such layout), and with an ellipsis cut;
    an unverified quote is never marked."""
    article = "Vela said: \u201cthe blue\n   sands\u201d were\nnear. Red dust was far."
    out = viewer._highlight(article, [('"the blue sands" were near...', True), ("Red dust was far", False)])
    assert str(out).count('<mark class="quoted"') == 1
    marked = re.search(r'<mark class="quoted"[^>]*>(.*?)</mark>', str(out), re.S).group(1)
    assert marked == "\u201cthe blue\n   sands\u201d were\nnear"
    assert "Red dust was far" in str(out) and str(out).count("<mark") == 1


def test_a_turn_cut_at_the_word_limit_is_marked(tmp_path):
    src = make_room_run(tmp_path / "run")
    index = viewer.Index([src])
    room = next(r for r in index.rooms if r.protocol == "debate")
    turn = TurnRecord.from_stored({"kind": "turn", "job_key": room.job_key, "judge": "sim:judge-a", "protocol": "debate",
                                   "task": "quality", "question_id": "q1", "round": 1, "role": "debater", "speaker": "Alice",
                                   "shown": "short", "content": "Argument: short",
                                   "extra": {"format": {"truncated_from_words": 212}}})
    assert "cut to the word limit from 212 words" in viewer._turn_view(turn, [], False)["marks"]
    page = viewer.render("viewer/room.html", links=viewer.Links(), v=index.room_view(room))
    assert "[cut at 90 tokens]" in page  # the argument budget's cut, as before
    index.close()


def test_the_room_page_reads_typed_records(tmp_path):
    """The viewer reads one room as typed records (issue 35): `RunReader.job_records` gives
    `TurnRecord`s and a `DecisionRecord`, `calls_of` gives `CallRecord`s, each keeping its stored dict
    exactly (key order included, for the raw JSON). The page reads their attributes, defaults included:
    a turn with private thinking and no budget stored (`TurnRecord.budget`: an empty Budget, its
    thinking_tokens None) shows no token count, not "None tokens"."""
    src = make_room_run(tmp_path / "run")
    run = WritableRun(src)
    try:  # one more room: a consultant thinking aloud, with no budget stored
        fields = {"judge": "sim:judge-a", "agent": "sim:agent", "protocol": "consultancy", "task": "quality",
                  "question_id": "q1", "assignment": "correct", "answer_order": "correct_first"}
        run.store.write_job("consultancy|quality|q1|correct|correct_first", fields,
                            [{"round": 1, "role": "consultant", "speaker": "Consultant", "defends": 1, "extra": {"model": "sim:agent"},
                              "content": "Thinking:\nNO-BUDGET-PLAN in four words\nArgument: blue sands"}],
                            {"raw": "Answer: 1", "answer": 1, "correct": True, "correct_index": 1, "answers": ["blue sands", "red dust"]})
    finally:
        run.close()
    index = viewer.Index([src])
    with RunReader(src) as reader:
        debate = reader.job_records("debate|quality|q1|-|correct_first")
        calls = list(reader.calls_of("debate", "quality", "q1", None, "correct_first"))
        raw = [dict(r) for r in stored_records(reader, "turn") if r["job_key"] == "debate|quality|q1|-|correct_first"]
    assert [type(r) for r in debate] == [DecisionRecord] + [TurnRecord] * 3  # by judge, then seq (the decision's: -1)
    assert [list(t.stored().items()) for t in debate[1:]] == [list(r.items()) for r in raw]
    assert len(calls) == 2 and all(type(c) is CallRecord for c in calls)
    assert debate[1].budget.thinking_tokens == 50 and debate[3].budget.thinking_tokens is None  # the typed default
    room = next(r for r in index.rooms if r.protocol == "consultancy")
    page = viewer.render("viewer/room.html", links=viewer.Links(), v=index.room_view(room))
    assert "private thinking (4 words)</summary><pre>NO-BUDGET-PLAN" in page and "None tokens" not in page
    index.close()


def test_cells_file_with_run_folders_relative_to_it_and_a_back_link(two_judges, tmp_path, monkeypatch):
    """A cells file names its runs relative to its own folder (as the leaderboard writes it) and may
    name a page to link back to: the export finds every decision from any working directory, and every
    page links back; a back link that leaves the relative tree is refused."""
    a, b = two_judges
    board = tmp_path / "board"
    board.mkdir()
    index = viewer.Index([a])
    rel = os.path.relpath(a, board)
    assert not rel.startswith("/")
    decisions = [[rel, "sim:judge-a", r.job_key] for r in index.rooms if r.protocol == "debate"]
    (board / "cells.json").write_text(json.dumps({"back": {"link": "../index.html", "title": "leaderboard"},
                                                  "cells": {"a-debate": {"title": "a · debate", "decisions": decisions}}}))
    monkeypatch.chdir(tmp_path / "..")  # anywhere else
    register_plugin()
    res = cli("view", str(a), "--export", str(board / "rooms"), "--cells", str(board / "cells.json"))
    assert res.exit_code == 0, res.output
    manifest = json.loads((board / "rooms" / "cells.json").read_text())["cells"]["a-debate"]
    assert manifest["rooms"] == len(decisions) and manifest["missing"] == 0
    listing = (board / "rooms" / "cells" / "a-debate" / "index.html").read_text()
    assert '<a class="back" id="back" href="../../../index.html">← leaderboard</a>' in listing
    room = next((board / "rooms" / "rooms").glob("*.html")).read_text()
    assert 'href="../../index.html">← leaderboard</a>' in room
    for bad in ("https://evil.example/", "/etc/passwd", "../x/../../y", "javascript:alert(1)", "..//x"):
        (board / "bad.json").write_text(json.dumps({"back": {"link": bad}, "cells": {}}))
        res = cli("view", str(a), "--export", str(tmp_path / "out"), "--cells", str(board / "bad.json"))
        assert res.exit_code == 2 and '"back"' in res.output, bad
    index.close()


def test_a_source_judges_question_is_labelled_with_who_asked_and_whether_this_judge_read_it(tmp_path):
    """An imported room keeps its live judge's questions; a model re-judging it is not their author,
    and the page says whether the model's own prompt held them (what the judge read)."""
    src = make_room_run(tmp_path / "run", source_judge=True)
    c = client(src)
    listing = c.get("/").text
    debate = next(i for i in rows(listing) if "debate" in listing.split(f'data-room="{i}"')[1].split("</tr>")[0])
    t = html.unescape(text_of(c.get(f"/room/{debate}").text))
    assert "the source's live judge asked · not in this judge's prompt SOURCE-JUDGE-QUESTION" in t
    assert "judge asked SOURCE" not in t.replace("live judge asked", "")


def _one_line(res, *needles: str) -> None:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.output
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.fixture()
def held_port():
    """A port something already listens on."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


def test_view_and_serve_check_the_port_and_bind_before_printing_or_writing(tmp_path, held_port, monkeypatch):
    """`view --port 99999` (or -1) is the same one line as `serve`'s; a port in use or a host that is
    no address here is one line, exit 2, before anything is printed or written: serve creates no
    output folder and shows no judge's or organiser's link."""
    import human_judging

    register_plugin()
    served = []
    monkeypatch.setattr(human_judging, "run_app", lambda app, sock: served.append(sock))
    src = make_room_run(tmp_path / "run")
    for port in ("99999", "-1", "0"):
        _one_line(cli("view", str(src), "--port", port), f"--port {port} is not a TCP port", "1 to 65535")
        _one_line(cli("serve", "--from", str(src), "--output", str(tmp_path / "o"), "--port", port),
                  f"--port {port} is not a TCP port")
    _one_line(cli("view", str(src), "--port", str(held_port)), f"cannot listen on 127.0.0.1:{held_port}", "expected a free port")
    _one_line(cli("view", str(src), "--host", "no such host!", "--token", "long-enough-token"),
              "cannot listen on no such host!:8000")
    for extra in (["--port", str(held_port)], ["--host", "no such host!", "--judges", "alice"]):
        res = cli("serve", "--from", str(src), "--output", str(tmp_path / "o"), *extra)
        _one_line(res, "cannot listen on")
        assert "key=" not in res.output and "organiser" not in res.output
        assert not (tmp_path / "o").exists()
    assert not served
    res = cli("view", str(src), "--port", str(free_port()))  # a free port: served on the socket bound
    assert res.exit_code == 0 and len(served) == 1 and "open: http://127.0.0.1:" in res.output
    served[0].close()
