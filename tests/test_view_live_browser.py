"""`oversight-bench view` in headless Chromium (issue 36, item 5's browser tests): the full-text search
typed into the list's filter, a run in progress whose list reloads itself as records come (the page's
own meta refresh, no reload by the test), and a derived protocol's (verified_evidence) room showing
first what its judge read, the source debate's turns folded away."""

from __future__ import annotations

import tempfile
import time

from helpers import FAKE, cli
from test_view_browser import browser, navigate, shot, start_view
from web_helpers import free_port, require_chromium

webdriver = require_chromium()
from selenium.webdriver.common.by import By  # noqa: E402


def _rooms(drv) -> list[str]:
    return [r.get_attribute("data-room") for r in drv.find_elements(By.CSS_SELECTOR, "tr.room")]


def _open(drv, url: str) -> None:
    """Open the list once the background index is built (until then it is a preview without a count)."""
    for _ in range(300):
        drv.get(url)
        if drv.find_elements(By.ID, "count"):
            return
        time.sleep(0.2)
    raise AssertionError("the list never showed its count")


def _session(*dirs):
    port = free_port()
    proc = start_view(*dirs, port=port)
    drv = browser(tempfile.mkdtemp(prefix="ob-chromium-"))
    return f"http://127.0.0.1:{port}", proc, drv


def _end(proc, drv) -> None:
    drv.quit()
    proc.terminate()
    proc.wait(timeout=30)


def test_full_text_search_typed_into_the_filter_finds_arguments_and_judge_output(tmp_path):
    from test_view import make_room_run

    src = make_room_run(tmp_path / "run")
    base, proc, drv = _session(src)
    try:
        _open(drv, base + "/")
        everything = _rooms(drv)
        placeholder = drv.find_element(By.ID, "f-q").get_attribute("placeholder")
        for _ in range(100):  # the full-text index is built after the list: its placeholder says when it is ready
            if "arguments" in placeholder:
                break
            time.sleep(0.2)
            _open(drv, base + "/")
            placeholder = drv.find_element(By.ID, "f-q").get_attribute("placeholder")
        assert placeholder == "question, arguments, passage, judge output, id"

        def search(text: str) -> set[str]:
            box = drv.find_element(By.ID, "f-q")
            box.clear()
            box.send_keys(text)
            navigate(drv, lambda: drv.find_element(By.ID, "apply").click())
            return {r.find_elements(By.TAG_NAME, "td")[2].text for r in drv.find_elements(By.CSS_SELECTOR, "tr.room")}

        assert search("red dust everywhere") == {"debate"}  # a debater's argument, as the judge read it
        shot(drv, "view-search")
        assert search("I cannot tell") == {"qa_without_article"}  # a judge's raw output
        assert search("PRIVATE-PLAN") == set()  # private thinking: not what any judge read
        assert "q=PRIVATE-PLAN" in drv.current_url and len(everything) > 1
    finally:
        _end(proc, drv)


def test_a_run_in_progress_reloads_itself_as_records_come(tmp_path):
    from oversight_bench.questions import Question
    from oversight_bench.rundir import WritableRun

    run = WritableRun(tmp_path / "live")
    judge = "sim:judge"
    run.begin({"judge": judge, "agent": "sim:agent"}, {"kind": "synthetic", "judge": judge})
    run.store.put_questions([Question(id=f"q{i}", task="mmlu", task_type="closed", question=f"LIVE-Q{i}?",
                                      correct="a", incorrect="b") for i in range(2)])

    def job(i: int) -> None:
        fields = {"judge": judge, "agent": "sim:agent", "protocol": "qa_without_article", "task": "mmlu",
                  "question_id": f"q{i}", "assignment": None, "answer_order": "correct_first"}
        run.store.write_job(f"qa_without_article|mmlu|q{i}|-|correct_first", fields, [],
                            {"raw": "Answer: 1", "answer": 1, "correct": True, "probs": None, "extra": {},
                             "correct_index": 1, "answers": ["a", "b"]})

    job(0)
    base, proc, drv = _session(run.dir)
    closed = False
    try:
        _open(drv, base + "/")
        assert len(_rooms(drv)) == 1 and drv.find_element(By.ID, "live").is_displayed()
        refresh = drv.find_element(By.CSS_SELECTOR, 'meta[http-equiv="refresh"]').get_attribute("content")
        assert int(refresh) <= 10
        job(1)  # the writer stores another job; the page reloads itself and shows it
        deadline = time.time() + 90
        while time.time() < deadline and "LIVE-Q1?" not in drv.page_source:
            time.sleep(1)
        assert "LIVE-Q1?" in drv.page_source and len(_rooms(drv)) == 2
        shot(drv, "view-live")
        run.close()  # the writer is done: the note goes on a later reload
        closed = True
        deadline = time.time() + 90
        while time.time() < deadline and drv.find_elements(By.ID, "live"):
            time.sleep(1)
        assert not drv.find_elements(By.ID, "live") and len(_rooms(drv)) == 2
    finally:
        if not closed:
            run.close()
        _end(proc, drv)


def test_a_verified_evidence_room_shows_what_its_judge_read(tmp_path):
    src = tmp_path / "debate"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "quality", "--limit", "1", "--quiet", "--rounds", "1",
              "--best-of-n", "1", "--protocols", "debate", "--output", str(src))
    assert res.exit_code == 0, res.output
    out = tmp_path / "ve"
    res = cli("judge", "--from", str(src), "--judge", FAKE, "--as", "verified_evidence", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    base, proc, drv = _session(out)
    try:
        _open(drv, base + "/")
        navigate(drv, lambda: drv.find_element(By.CSS_SELECTOR, "tr.room td.question a").click())
        note = drv.find_element(By.ID, "derived")
        assert note.is_displayed() and "verified_evidence is judged from debate's transcripts" in note.text
        folded = drv.find_element(By.ID, "source-turns")
        assert folded.get_attribute("open") is None  # the debate the judge did not read whole: folded
        assert not any(t.is_displayed() for t in folded.find_elements(By.CSS_SELECTOR, ".turn"))
        prompt = [m for m in drv.find_elements(By.CSS_SELECTOR, "details.call[open] .msg.user") if m.is_displayed()]
        assert prompt and all(m.text.strip() for m in prompt)  # the judge's prompt, open, as chat turns
        shot(drv, "view-derived")
    finally:
        _end(proc, drv)
