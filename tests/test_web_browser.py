"""A whole judging session in headless Chromium (selenium + Debian chromium/chromium-driver): sign in,
judge three items, ask a live consultant a question, resume after a reload and after closing the
browser, then check the stored records and `oversight-bench report`. Set
OVERSIGHT_BENCH_SCREENSHOTS=docs/screenshots to refresh the README's screenshots."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers import REPO, cli, stored_records
from web_helpers import free_port, headless_chromium, require_chromium, make_source, start_server

webdriver = require_chromium()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def browser(profile: str):
    return headless_chromium(webdriver, profile, "900,760")


def submit(drv, button_id: str) -> None:
    """Click a form's button and wait for the next page to load."""
    page = drv.find_element(By.TAG_NAME, "html")
    drv.find_element(By.ID, button_id).click()
    # chromedriver may answer "node does not belong to the document" while the old page goes: poll again
    WebDriverWait(drv, 60, ignored_exceptions=(WebDriverException,)).until(EC.staleness_of(page))
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")


def shot(drv, name: str, scroll_to: str | None = None) -> None:
    folder = os.environ.get("OVERSIGHT_BENCH_SCREENSHOTS")
    if folder:
        if scroll_to:
            drv.execute_script("arguments[0].scrollIntoView()", drv.find_element(By.CSS_SELECTOR, scroll_to))
        Path(REPO / folder).mkdir(parents=True, exist_ok=True)
        drv.save_screenshot(str(REPO / folder / f"{name}.png"))


def sign_in(drv, base: str, name: str) -> None:
    drv.get(base + "/")
    drv.find_element(By.ID, "name").send_keys(name)
    submit(drv, "signin")


def current_question(drv) -> str:
    return drv.find_element(By.ID, "question-text").text


def test_browser_session(tmp_path):
    # debate and QA transcripts to judge; consultancy live with the scripted consultant
    src = make_source(tmp_path / "src", tasks="prontoqa", protocols="qa_without_article,debate", limit=4)
    out, port = tmp_path / "out", free_port()
    proc = start_server("--from", str(src), "--output", str(out), "--agent", "scripted:default",
                        "--live", "consultancy", "-o", "rounds=2", port=port)
    base = f"http://127.0.0.1:{port}"
    profile = tempfile.mkdtemp(prefix="ob-chromium-")
    drv = browser(profile)
    try:
        drv.get(base + "/")
        assert "Sign in" in drv.title
        shot(drv, "sign-in")
        sign_in(drv, base, "pat")
        decided, asked = 0, 0
        while decided < 3:
            assert "Judging" in drv.title, drv.page_source[:500]
            if drv.find_elements(By.ID, "ask"):
                drv.find_element(By.ID, "question").send_keys("Why should I believe your answer over the other?")
                submit(drv, "ask")
                asked += 1
                # the consultant's reply to the question is on the page
                turns = drv.find_elements(By.CSS_SELECTOR, ".turn")
                assert [t.get_attribute("class") for t in turns] == ["turn consultant", "turn judge", "turn consultant"]
                assert "Why should I believe" in turns[1].text
                shot(drv, "live-consultancy", scroll_to=".transcript")
                continue
            if decided == 1:
                shown = current_question(drv)
                drv.refresh()  # resume after reload: the same item
                assert current_question(drv) == shown
            if drv.find_elements(By.CSS_SELECTOR, ".turn.debater"):
                shot(drv, "judging", scroll_to=".answers")
            # each choice shows its answer's text; no confidence is filled in, and a decision sent without one
            # comes back saying so (not blocked silently by the browser), the chosen answer kept
            for n in (1, 2):
                answer = drv.find_element(By.ID, f"answer{n}").text.split(" ", 1)[1]
                assert answer in drv.find_element(By.ID, f"choice{n}-label").text
            chosen = "choice2" if decided % 2 else "choice1"
            drv.find_element(By.ID, chosen).click()
            conf = drv.find_element(By.ID, "confidence")
            assert conf.get_attribute("value") == ""
            submit(drv, "decide")
            error = drv.find_element(By.ID, "error")
            assert error.is_displayed() and "confidence is missing" in error.text and "Judging" in drv.title
            assert drv.find_element(By.ID, chosen).is_selected()
            conf = drv.find_element(By.ID, "confidence")
            conf.send_keys(str(60 + 10 * decided))
            drv.find_element(By.ID, "reason").send_keys(f"reason {decided}")
            submit(drv, "decide")
            decided += 1
        assert asked >= 1, "the three items should include the live consultancy (protocols are balanced)"
        open_item = current_question(drv)
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
    # closing the browser loses nothing: a new browser, the same judge name, the same open item
    profile = tempfile.mkdtemp(prefix="ob-chromium-")
    drv = browser(profile)
    try:
        sign_in(drv, base, "pat")
        assert current_question(drv) == open_item
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
        proc.terminate()
        proc.wait(timeout=30)

    from oversight_bench.rundir.store import Store

    st = Store.open(out)
    try:
        decisions = list(stored_records(st, "decision"))
        turns = list(stored_records(st, "turn"))
    finally:
        st.close()
    assert len(decisions) == 3 and {d["judge"] for d in decisions} == {"human:pat"}
    assert sorted(d["extra"]["human"]["confidence"] for d in decisions) == [0.6, 0.7, 0.8]
    assert {d["protocol"] for d in decisions} == {"qa_without_article", "debate", "consultancy"}
    question = next(t for t in turns if t["protocol"] == "consultancy" and t["role"] == "judge")
    assert question["shown"] == "Why should I believe your answer over the other?"
    res = cli("report", str(out), str(src), "--output", str(tmp_path / "report"), "--no-figures")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "report" / "report.md").read_text()
    assert "human:pat" in md and "scripted:default" in md
