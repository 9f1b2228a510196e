"""The viewer's run overview, chat turns and prev/next in headless Chromium (issue 36, item 5): filter
the list, open a room, step to the next room and back with the filters kept, open a call's messages,
then the run's overview from the header. OVERSIGHT_BENCH_SCREENSHOTS=docs/screenshots refreshes the
screenshots the docs show."""

from __future__ import annotations

import shutil
import tempfile
import time

from helpers import FAKE, cli
from web_helpers import free_port, require_chromium

webdriver = require_chromium()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from test_view_browser import browser, cells, navigate, shot, start_view  # noqa: E402


def test_overview_chat_turns_and_prev_next_keep_the_filters(tmp_path):
    run = tmp_path / "scripted"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3", "--quiet", "--rounds", "1",
              "--protocols", "qa_without_article,consultancy", "--output", str(run))
    assert res.exit_code == 0, res.output
    port = free_port()
    proc = start_view(run, port=port)
    profile = tempfile.mkdtemp(prefix="ob-chromium-")
    drv = browser(profile)
    try:
        base = f"http://127.0.0.1:{port}"
        drv.get(base + "/")
        for _ in range(300):  # the index is built in the background
            if drv.find_elements(By.ID, "count"):
                break
            time.sleep(0.2)
            drv.get(base + "/")
        Select(drv.find_element(By.ID, "f-protocol")).select_by_visible_text("consultancy")
        navigate(drv, lambda: drv.find_element(By.ID, "apply").click())
        listed = [r.get_attribute("data-room") for r in drv.find_elements(By.CSS_SELECTOR, "tr.room")]
        assert len(listed) == 12 and set(cells(drv, 2)) == {"consultancy"}
        first = drv.find_element(By.CSS_SELECTOR, "tr.room td.question a")
        navigate(drv, first.click)
        assert "protocol=consultancy" in drv.current_url
        assert drv.find_element(By.ID, "back-to-list").text.startswith("room 1 of 12 (filtered)")
        # a call's messages as turns, the prefill marked
        summary = next(s for s in drv.find_elements(By.CSS_SELECTOR, "details.call summary") if "/argument" in s.text)
        summary.click()  # the argument call, which continues the thinking: its prefill
        user = drv.find_element(By.CSS_SELECTOR, "details.call[open] .msg.user")
        assert user.is_displayed() and user.find_element(By.CSS_SELECTOR, ".role").text == "user"
        prefill = drv.find_elements(By.CSS_SELECTOR, "details.call[open] .msg.assistant.prefill")
        assert prefill and "prefill" in prefill[0].text
        assert not drv.find_element(By.CSS_SELECTOR, "details.call[open] pre.request").is_displayed()
        shot(drv, "view-chat")
        # next, next, previous: the filtered list's order, filters kept
        navigate(drv, lambda: drv.find_element(By.ID, "next-room").click())
        navigate(drv, lambda: drv.find_element(By.ID, "next-room").click())
        assert drv.current_url.split("/room/")[1].split("?")[0] == listed[2] and "protocol=consultancy" in drv.current_url
        navigate(drv, lambda: drv.find_element(By.ID, "prev-room").click())
        assert drv.current_url.split("/room/")[1].split("?")[0] == listed[1]
        assert drv.find_element(By.ID, "back-to-list").text.startswith("room 2 of 12")
        navigate(drv, lambda: drv.find_element(By.ID, "back-to-list").click())
        assert "protocol=consultancy" in drv.current_url and set(cells(drv, 2)) == {"consultancy"}
        # the run's overview from the header
        navigate(drv, lambda: drv.find_element(By.CSS_SELECTOR, "#run-links a").click())
        assert drv.find_element(By.ID, "run-title").text == "Run scripted"
        table = drv.find_elements(By.CSS_SELECTOR, "#cells tr.cell")
        assert len(table) == 2 and any("consultancy" in r.text for r in table)
        assert drv.find_elements(By.CSS_SELECTOR, "#deviations li") and drv.find_elements(By.CSS_SELECTOR, "#calls tr.model")
        shot(drv, "view-overview")
        navigate(drv, lambda: table[0].find_element(By.CSS_SELECTOR, "a.rooms-link").click())
        assert "run=scripted" in drv.current_url and len(drv.find_elements(By.CSS_SELECTOR, "tr.room")) > 0
    finally:
        drv.quit()
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)
