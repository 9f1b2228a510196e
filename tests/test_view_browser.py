"""`oversight-bench view` in headless Chromium (selenium + Debian chromium/chromium-driver): filter the
room list, sort it, open a room, see the verdicts and the private thinking behind its toggle, go to the
side-by-side page. Set OVERSIGHT_BENCH_SCREENSHOTS=docs/screenshots to refresh the screenshots."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from fake_runs import make_run
from helpers import REPO
from test_view import make_room_run
from web_helpers import free_port, headless_chromium, require_chromium, start_command

webdriver = require_chromium()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402


def browser(profile: str):
    return headless_chromium(webdriver, profile, "1280,900")


def start_view(*dirs: Path, port: int) -> subprocess.Popen:
    return start_command("view", *map(str, dirs), port=port)


def navigate(drv, action) -> None:
    """Do something that loads a new page and wait for it."""
    page = drv.find_element(By.TAG_NAME, "html")
    action()
    WebDriverWait(drv, 60, ignored_exceptions=(WebDriverException,)).until(EC.staleness_of(page))
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")


def shot(drv, name: str) -> None:
    folder = os.environ.get("OVERSIGHT_BENCH_SCREENSHOTS")
    if folder:
        Path(REPO / folder).mkdir(parents=True, exist_ok=True)
        drv.save_screenshot(str(REPO / folder / f"{name}.png"))


def cells(drv, column: int) -> list[str]:
    return [r.find_elements(By.TAG_NAME, "td")[column].text for r in drv.find_elements(By.CSS_SELECTOR, "tr.room")]


def test_filter_sort_open_a_room(tmp_path):
    a = make_run(tmp_path / "judge-a", judge="sim:judge-a", n_questions=5, seed=1)
    b = make_run(tmp_path / "judge-b", judge="sim:judge-b", n_questions=5, seed=2)
    rooms = make_room_run(tmp_path / "rooms")
    port = free_port()
    proc = start_view(a, b, rooms, port=port)
    profile = tempfile.mkdtemp(prefix="ob-chromium-")
    drv = browser(profile)
    try:
        base = f"http://127.0.0.1:{port}"
        drv.get(base + "/")
        for _ in range(300):  # the index is built in the background; until then the list is a preview
            if drv.find_elements(By.ID, "count"):
                break
            time.sleep(0.2)
            drv.get(base + "/")
        total = int(drv.find_element(By.ID, "count").text.split(" of ")[1].split()[0])
        assert len(drv.find_elements(By.CSS_SELECTOR, "tr.room")) == 50 and total > 50
        shot(drv, "view-list")
        # filter: debates where judge b was wrong
        Select(drv.find_element(By.ID, "f-protocol")).select_by_visible_text("debate")
        Select(drv.find_element(By.ID, "f-judge")).select_by_visible_text("sim:judge-b")
        drv.find_element(By.ID, "f-wrong").click()
        navigate(drv, lambda: drv.find_element(By.ID, "apply").click())
        shown = drv.find_elements(By.CSS_SELECTOR, "tr.room")
        assert shown and len(shown) < 50 and set(cells(drv, 2)) == {"debate"}
        for row in shown:
            b_verdict = next(v.text for v in row.find_elements(By.CSS_SELECTOR, ".verdict") if v.text.startswith("sim:judge-b"))
            assert "✗" in b_verdict or "invalid" in b_verdict
        assert "protocol=debate" in drv.current_url and "wrong=1" in drv.current_url
        shot(drv, "view-filtered")
        # sort by question, then the other way: the filters stay
        navigate(drv, lambda: drv.find_element(By.ID, "sort-question").click())
        asc = cells(drv, 0)
        assert asc == sorted(asc, key=str.lower) and set(cells(drv, 2)) == {"debate"}
        navigate(drv, lambda: drv.find_element(By.ID, "sort-question").click())
        assert cells(drv, 0) == sorted(asc, key=str.lower, reverse=True)
        # free text finds the hostile question of the room run, shown as text ("Vela" alone is also in
        # the other runs' passages, which the full-text search covers)
        navigate(drv, lambda: drv.find_element(By.ID, "clear").click())
        drv.find_element(By.ID, "f-q").send_keys("did Vela see")
        navigate(drv, lambda: drv.find_element(By.ID, "apply").click())
        assert len(cells(drv, 0)) == 2 and all("<script>" in c for c in cells(drv, 0))
        # open the debate room: verdicts, passage marks, thinking behind its toggle
        link = next(r for r in drv.find_elements(By.CSS_SELECTOR, "tr.room") if "debate" in r.text)
        navigate(drv, lambda: link.find_element(By.CSS_SELECTOR, "td.question a").click())
        verdict = drv.find_element(By.CSS_SELECTOR, ".judge .who").text
        assert "sim:judge-a" in verdict and "answer 1 — correct ✓" in verdict and "P = 0.80 / 0.20" in verdict
        assert drv.find_element(By.CSS_SELECTOR, "#article div mark.quoted").text == "saw the blue sands"
        thinking = drv.find_element(By.CSS_SELECTOR, "details.thinking pre")
        assert not thinking.is_displayed()
        drv.find_element(By.CSS_SELECTOR, "details.thinking summary").click()
        assert thinking.is_displayed() and "PRIVATE-PLAN" in thinking.text
        shot(drv, "view-room")
        # the same question across protocols and judges
        navigate(drv, lambda: drv.find_element(By.ID, "side-by-side").click())
        side = drv.find_element(By.ID, "side").text
        assert "debate" in side and "qa_without_article" in side and "invalid" in side
        shot(drv, "view-side-by-side")
    finally:
        drv.quit()
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)
