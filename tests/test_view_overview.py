"""The viewer beside `inspect view` (issue 36, item 5), over HTTP: a run overview page (accuracy per
cell as results.json has it, config, deviations, models, tokens, time); a call's chat messages
rendered as turns (system/user/assistant, the prefill marked), not as one JSON string; prev/next in a
room that keep the list's filters; token counts (and no empty raw box) for probs-mode judges."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from helpers import FAKE, cli  # noqa: E402

from human_judging import viewer  # noqa: E402
from oversight_bench.api import CallRecord  # noqa: E402
from oversight_bench.errors import BenchError  # noqa: E402

RUN = ["run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3", "--quiet", "--rounds", "1"]


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def rows(page: str) -> list[str]:
    return re.findall(r'<tr class="room" data-room="([0-9a-f]+)">', page)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("overview")
    main = base / "main"
    res = cli(*RUN, "--protocols", "qa_without_article,consultancy,debate", "--best-of-n", "1", "--output", str(main))
    assert res.exit_code == 0, res.output
    probs = base / "probs"
    res = cli(*RUN[:-2], "--judge", f"{FAKE},logprobs=true", "--protocols", "qa_without_article", "--judge-mode", "probs",
              "--output", str(probs))
    assert res.exit_code == 0, res.output
    return main, probs


def client(*dirs) -> TestClient:
    return TestClient(viewer.create_view_app(viewer.Index(dirs)), base_url="http://127.0.0.1")


def test_run_overview_has_the_cells_of_results_json_config_deviations_models_and_time(runs):
    main, _ = runs
    results = json.loads((main / "results.json").read_text())
    c = client(main)
    listing = c.get("/").text
    assert 'href="/run/1"' in listing  # the list's header links each run's overview
    page = c.get("/run/1").text
    t = text_of(page)
    shown = re.findall(r'<tr class="cell">(.*?)</tr>', page, re.S)
    assert len(shown) == len(results["cells"]) == 3
    for cell in results["cells"]:
        want = f"{100 * cell['accuracy']:.1f} [" + (f"{100 * cell['ci_low']:.1f}, {100 * cell['ci_high']:.1f}]"
                                                     if cell["ci_low"] is not None else "–]")
        row = next(text_of(r) for r in shown if f" {cell['protocol']} " in text_of(r))
        assert want in row and f" {cell['n']} " in row and f" {cell['n_records']} " in row, (row, cell)
    for dev in results["deviations"][:3]:
        assert dev.split(" (")[0] in t
    for calls in results["calls"]:  # per model and role: calls and tokens as the store holds them
        assert f"{calls['model']} {calls['role']} {calls['calls']} {calls['prompt_tokens']} {calls['completion_tokens']}" in t
    assert f"judge {FAKE}" in t and "protocols qa_without_article, consultancy, debate" in t and "limit 3" in t
    assert "started " in t and "last invocation" in t
    # per cell, the calls and tokens its protocol and task spent (every role), and per question
    from oversight_bench.rundir.store import Store

    store = Store.open(main)
    try:
        spent = {(p, tk): (n, tok) for p, tk, n, tok in store._select(
            "SELECT protocol, task, COUNT(*), SUM(prompt_tokens + completion_tokens) FROM calls GROUP BY protocol, task")}
    finally:
        store.close()
    for cell in results["cells"]:
        row = next(text_of(r) for r in shown if f" {cell['protocol']} " in text_of(r))
        n, tok = spent[(cell["protocol"], cell["task"])]
        assert f" {n} {tok} {round(tok / 3)} " in row, (row, n, tok)
    # each cell's rooms link opens the list filtered to exactly that cell's rooms
    link = re.search(r'<a class="rooms-link" href="([^"]+)"', shown[0]).group(1).replace("&amp;", "&")
    assert parse_qs(urlsplit(link).query)["run"] == ["main"]
    filtered = rows(c.get(link).text)
    protocol = parse_qs(urlsplit(link).query)["protocol"][0]
    n = next(cell["n_records"] for cell in results["cells"] if cell["protocol"] == protocol)
    assert len(filtered) == n
    assert c.get("/run/2").status_code == 404 and c.get("/run/0").status_code == 404


def test_a_call_shows_its_messages_as_turns_with_the_prefill_marked(runs):
    main, _ = runs
    c = client(main)
    room = next(i for i in rows(c.get("/?protocol=consultancy").text))
    page = c.get(f"/room/{room}").text
    assert re.search(r'<div class="msg user"><div class="role">user</div><div class="content">You are an expert consultant', page)
    assert '<div class="msg assistant prefill"><div class="role">assistant · prefill' in page
    assert re.search(r'<div class="msg assistant reply">.*?reason', page, re.S)
    # the raw JSON is still there, behind its own toggle, not the only form
    assert '<details class="raw-json">' in page and '<pre class="request">' in page
    # a system message, a multi-part content with an image, and an assistant turn, rendered from a request
    call = viewer._call_view(CallRecord.from_stored({"key": "k" * 64, "tag": "judge", "model": "m", "role": "judge",
                                                     "prompt_tokens": 5, "completion_tokens": 1,
                              "request": {"kind": "generate", "messages": [
                                  {"role": "system", "content": "SYS <b>x</b>"},
                                  {"role": "user", "content": [{"type": "image", "data": "..."}, {"type": "text", "text": "Q?"}]},
                                  {"role": "assistant", "content": "EARLIER"}], "prefix": "Answer:", "temperature": 0},
                              "response": {"texts": ["Answer: 1"]}}))
    html = viewer.render("viewer/call.html", links=viewer.Links(), c=call)
    assert '<div class="msg system"><div class="role">system</div><div class="content">SYS &lt;b&gt;x&lt;/b&gt;</div>' in html
    assert "user · 1 image(s), not shown" in html and ">Q?<" in html and '<div class="msg assistant">' in html
    assert "prefill: the reply continues from this text</div><div class=\"content\">Answer:" in html
    assert "5 + 1 tokens" in html and "temperature 0" in html


def test_prev_and_next_walk_the_filtered_list_and_back_keeps_the_filters(runs):
    main, _ = runs
    c = client(main)
    params = "protocol=consultancy&sort=question"
    order = rows(c.get(f"/?{params}").text)
    assert len(order) >= 4
    listing = c.get(f"/?{params}").text
    assert f'href="/room/{order[0]}?protocol=consultancy&amp;sort=question"' in listing
    seen, url = [], f"/room/{order[0]}?{params}"
    while url:
        page = c.get(url).text
        seen.append(url.split("/room/")[1].split("?")[0])
        back = re.search(r'id="back-to-list" href="([^"]+)"|href="([^"]+)" id="back-to-list"', page)
        back = (back.group(1) or back.group(2)).replace("&amp;", "&")
        assert parse_qs(urlsplit(back).query)["protocol"] == ["consultancy"]
        assert f"room {len(seen)} of {len(order)} (filtered)" in text_of(page)
        nxt = re.search(r'<a href="([^"]+)" id="next-room">', page)
        url = nxt.group(1).replace("&amp;", "&") if nxt else None
        if url:
            assert "protocol=consultancy" in url and "sort=question" in url
    assert seen == order
    last = c.get(f"/room/{order[-1]}?{params}").text
    prev = re.search(r'<a href="([^"]+)" id="prev-room">', last).group(1)
    assert prev.startswith(f"/room/{order[-2]}?")
    # a list longer than a page: back goes to the page that holds the room
    index = viewer.Index([main])
    rooms = index.select({})
    assert viewer.room_nav(index, rooms[3], {}, page_size=2)["back"] == "/?page=2"
    assert viewer.room_nav(index, rooms[1], {}, page_size=2)["back"] == "/"
    nav = viewer.room_nav(index, rooms[5], {"protocol": "debate"}, page_size=2)  # a room the filter leaves out
    assert nav["at"] == 0 and nav["prev"] is None and nav["back"] == "/?protocol=debate" or rooms[5].protocol == "debate"


def test_probs_mode_judges_show_their_tokens_and_no_empty_raw_box(runs):
    _, probs = runs
    c = client(probs)
    room = rows(c.get("/").text)[0]
    page = c.get(f"/room/{room}").text
    t = text_of(page)
    m = re.search(r"call judge/probs · \S+ · (\d+) prompt tokens \(answer probabilities read, no text generated\)", t)
    assert m and int(m.group(1)) > 0, t[:3000]
    assert "0 + 0 tokens" not in t and "tokens not reported" not in t
    assert 'id="from-probs"' in page and "no text: the answer was read from the answer-token probabilities (P = " in t
    assert "raw output:" not in t
    # a call whose backend reported nothing says so instead of "0 + 0"
    call = viewer._call_view(CallRecord.from_stored({"key": "k" * 64, "model": "m", "request": {"kind": "choice_probs", "messages": []},
                                                     "response": {"probs": [0.3, 0.7]}, "prompt_tokens": 0, "completion_tokens": 0}))
    assert call["tokens"] == "tokens not reported by the backend"


def test_the_static_export_has_each_runs_overview(runs, tmp_path):
    main, probs = runs
    out = tmp_path / "site"
    viewer.export_static([main, probs], out)
    for n in (1, 2):
        page = (out / "runs" / f"{n}.html").read_text()
        assert '<table class="cells" id="cells">' in page and 'href="../view.css"' in page
    assert 'href="runs/2.html"' in (out / "index.html").read_text()


def test_the_judge_filter_narrows_the_verdicts_and_each_verdict_names_its_run(tmp_path):
    from fake_runs import make_run

    a = make_run(tmp_path / "judge-a", judge="sim:judge-a", n_questions=3, seed=1)
    b = make_run(tmp_path / "judge-b", judge="sim:judge-b", n_questions=3, seed=2)
    c = client(a, b)
    everything = c.get("/").text
    verdicts = re.findall(r'<div class="verdict [a-z]+" title="[^"]*">(.*?)</div>', everything)
    assert any("sim:judge-a" in v for v in verdicts) and any("sim:judge-b" in v for v in verdicts)
    assert all(re.search(r"\((judge-a|judge-b)\)", text_of(v)) for v in verdicts)  # two runs: each names its run
    narrowed = c.get("/?judge=sim:judge-b").text
    shown = re.findall(r'<div class="verdict [a-z]+" title="[^"]*">(.*?)</div>', narrowed)
    assert shown and all(re.match(r"sim:judge-b \(judge-b\) ?:", text_of(v).strip()) for v in shown)
    by_run = re.findall(r'<div class="verdict [a-z]+" title="([^"]*)">', c.get("/?run=judge-a").text)
    assert by_run and set(by_run) == {"judge-a"}


def test_view_over_a_folder_of_runs_lists_each_run(tmp_path):
    from fake_runs import make_run

    make_run(tmp_path / "runs" / "a", judge="sim:judge-a", n_questions=2, seed=1)
    make_run(tmp_path / "runs" / "preset" / "b", judge="sim:judge-b", n_questions=2, seed=2)
    (tmp_path / "runs" / "notes").mkdir()
    index = viewer.Index([tmp_path / "runs"])
    assert index.dirs == [tmp_path / "runs" / "a", tmp_path / "runs" / "preset" / "b"] and index.labels == ["a", "b"]
    page = TestClient(viewer.create_view_app(index), base_url="http://127.0.0.1").get("/").text
    assert 'href="/run/1"' in page and 'href="/run/2"' in page
    # a folder with no run under it stays an error in one line
    with pytest.raises(BenchError, match="is not a run directory"):
        viewer.Index([tmp_path / "runs" / "notes"])


def test_free_text_searches_arguments_passages_and_judge_output(tmp_path):
    """FTS5 over every room's turns, raw judge outputs, answers and its question's passage."""
    from test_view import ARTICLE, make_room_run

    src = make_room_run(tmp_path / "run")
    index = viewer.Index([src])
    assert index.fulltext.ready.is_set() and index.fulltext.error is None and index.fulltext.rows >= 3
    c = TestClient(viewer.create_view_app(index), base_url="http://127.0.0.1")

    def found(q: str) -> set[str]:
        return {index.by_id[i].protocol for i in rows(c.get("/", params={"q": q}).text)}

    assert found("red dust everywhere") == {"debate"}  # Bob's argument (shown text)
    assert found("I cannot tell") == {"qa_without_article"}  # the QA judge's raw output
    assert found("wrote a letter home") == {"debate", "qa_without_article"}  # the passage: every room of its question
    assert found("red dus") == {"debate", "qa_without_article"}  # the last word as a prefix; the answers match too
    assert found("PRIVATE-PLAN") == set()  # private thinking is not what the judge read: not searched
    assert found('"); DROP TABLE texts; --') == set() and found("***") == set()  # no FTS syntax, no error
    assert "letter" in ARTICLE and found("Vela see") == {"debate", "qa_without_article"}  # the question, as before
    page = c.get("/", params={"q": "red"}).text
    assert 'placeholder="question, arguments, passage, judge output, id"' in page and "fulltext-pending" not in page


def test_free_text_before_the_full_text_index_searches_the_short_fields(tmp_path):
    from test_view import make_room_run

    src = make_room_run(tmp_path / "run")
    index = viewer.Index([src], search=False)
    assert not index.fulltext.ready.is_set()
    assert index.select({"q": "red dust everywhere"}) == []
    page = viewer.render("viewer/list.html", links=viewer.Links(), static=False,
                         **viewer.list_context(index, {"q": "Vela"}))
    assert 'id="fulltext-pending"' in page and len(rows(page)) == 2
    index.fulltext.build(index)
    assert {r.protocol for r in index.select({"q": "red dust everywhere"})} == {"debate"}  # not the cached fallback
    index.close()


def test_a_run_in_progress_is_rebuilt_as_records_come_and_its_pages_reload(tmp_path):
    """A writer holds the run: the list says so and reloads itself; a new job shows once the index is
    rebuilt from a fresh snapshot; when the writer is done the note goes."""
    from oversight_bench.questions import Question
    from oversight_bench.rundir import WritableRun

    run = WritableRun(tmp_path / "live")
    store = run.store
    judge = "sim:judge"
    run.begin({"judge": judge, "agent": "sim:agent"}, {"kind": "synthetic", "judge": judge})
    qs = [Question(id=f"q{i}", task="mmlu", task_type="closed", question=f"LIVE-Q{i}?", correct="a", incorrect="b")
          for i in range(2)]
    store.put_questions(qs)

    def job(i: int) -> None:
        fields = {"judge": judge, "agent": "sim:agent", "protocol": "qa_without_article", "task": "mmlu",
                  "question_id": f"q{i}", "assignment": None, "answer_order": "correct_first"}
        store.write_job(f"qa_without_article|mmlu|q{i}|-|correct_first", fields, [],
                        {"raw": "Answer: 1", "answer": 1, "correct": True, "probs": None, "extra": {},
                         "correct_index": 1, "answers": ["a", "b"]})

    job(0)
    index = viewer.Index([run.dir])
    c = TestClient(viewer.create_view_app(index), base_url="http://127.0.0.1")
    live = index.live
    live.check_s = live.min_rebuild_s = 0
    try:
        page = c.get("/").text
        assert len(rows(page)) == 1 and 'http-equiv="refresh"' in page and 'id="live"' in page
        assert 'http-equiv="refresh"' in c.get("/run/1").text
        assert 'http-equiv="refresh"' not in c.get(f"/room/{rows(page)[0]}").text  # a room page is read, not reloaded
        job(1)
        c.get("/")  # a look at the files: changed, so a rebuild starts
        assert live.rebuilder is not None
        live.rebuilder.join(60)
        assert live.index is not index and live.error is None
        page = c.get("/").text
        assert len(rows(page)) == 2 and "LIVE-Q1?" in page
        assert c.get(f"/room/{rows(page)[0]}").status_code == 200
    finally:
        run.close()
    live.poll()  # the writer is done: its store changed once more (checkpointed), and no one holds it
    if live.rebuilder is not None:
        live.rebuilder.join(60)
    page = c.get("/").text
    assert len(rows(page)) == 2 and 'http-equiv="refresh"' not in page and 'id="live"' not in page
    live.close()
    index.close()


def test_a_finished_run_is_not_rebuilt_and_does_not_reload(tmp_path):
    from test_view import make_room_run

    index = viewer.Index([make_room_run(tmp_path / "run")])
    c = TestClient(viewer.create_view_app(index), base_url="http://127.0.0.1")
    index.live.check_s = index.live.min_rebuild_s = 0
    for _ in range(3):
        page = c.get("/").text
    assert index.live.rebuilder is None and 'http-equiv="refresh"' not in page and 'id="live"' not in page
    index.close()


def test_a_derived_protocols_room_shows_what_its_judge_read(tmp_path):
    """verified_evidence judges a debate's verified quotes alone: its room says so, keeps the debate's
    turns behind a toggle, and opens the judge's prompt (its chat turns) where the judge's read is."""
    src = tmp_path / "debate"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "quality", "--limit", "1", "--quiet", "--rounds", "1",
              "--best-of-n", "1", "--protocols", "debate", "--output", str(src))
    assert res.exit_code == 0, res.output
    out = tmp_path / "ve"
    res = cli("judge", "--from", str(src), "--judge", FAKE, "--as", "verified_evidence", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    c = client(out)
    room = rows(c.get("/").text)[0]
    page = c.get(f"/room/{room}").text
    assert 'id="derived"' in page and "verified_evidence is judged from debate's transcripts" in page
    assert re.search(r'<details class="source-turns" id="source-turns"><summary>the source debate\'s \d+ turns', page)
    judges = page.split("<h2>Judges</h2>", 1)[1]
    assert '<details class="call" open>' in judges and '<div class="msg user">' in judges
    # a debate's own room is as before: no note, the turns in the open, the judge's call closed
    debate = client(src)
    plain = debate.get(f"/room/{rows(debate.get('/').text)[0]}").text
    assert 'id="derived"' not in plain and '<details class="call" open>' not in plain
