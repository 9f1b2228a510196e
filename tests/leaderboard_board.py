"""The leaderboard that tests/test_leaderboard_html.py reads as files and
tests/test_leaderboard_browser.py opens in headless Chromium: built once per test module by each."""

from __future__ import annotations

from pathlib import Path

from fake_runs import make_crossplay, make_run
from human_judging import viewer
from oversight_bench.publish.leaderboard import build_leaderboard
from oversight_bench.questions import Question
from oversight_bench.rundir.store import Store

PWN = "document.body.setAttribute('data-pwned','{}')"
EVIL_JUDGE = f"sim:</script><script>{PWN.format(3)}</script>"


def set_config(directory, **extra):
    st = Store.open(directory, write=True)
    try:
        st.write_config({**(st.read_config() or {}), **extra})
    finally:
        st.close()


def evil_run(directory):
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


ORDERS = ("correct_first", "correct_second")
SUBSET = {f"debate|{t}|{t}-{i}|-|{o}" for t in ("quality", "boolq", "mmlu") for i in (0, 1) for o in ORDERS}


def build_board(base: Path) -> tuple[Path, dict]:
    """Model judges, a small one, cross-play games, human judges of an imported suite (7 of them, by
    the import record), a model re-judging two thirds of their debate rooms, and a run whose every
    field tries to run script; the leaderboard, then the viewer's export of its cells' rooms."""
    from oversight_bench.commands import rejudge

    big = make_run(base / "big", n_questions=40, judge="sim:judge-a")  # 80 extractive questions: cells n >= 64
    set_config(big, deviations=["judge position-debiased (both orders averaged)"])
    small = make_run(base / "small", n_questions=4, judge="sim:judge-b", seed=1)
    xp = make_crossplay(base / "xp", {"sim:agent": 50.0, "other": -50.0}, n_games=80, judge="sim:xp-judge")
    human = make_run(base / "human", n_questions=3, judge="human:nyu-2023", seed=2)
    set_config(human, **{"import": {"kind": "nyu-debate", "counts": {"human_judges": 7, "by_protocol": {"debate": 18}}}})
    rejudged = base / "rejudged"
    rejudge(str(human), "scripted:default", str(rejudged), progress=False, only=SUBSET)
    xp_rejudged = base / "xp-rejudged"  # cross-play re-judged by another judge: still no judge row
    rejudge(str(xp), "scripted:default,delay=0", str(xp_rejudged), progress=False)
    evil = evil_run(base / "evil")
    dirs = [big, small, xp, xp_rejudged, human, rejudged, evil]
    res = build_leaderboard(dirs, base / "leaderboards", n_resamples=500)
    cells, back = viewer.read_cells_file(base / "leaderboards" / "rooms-cells.json")
    viewer.export_static([d for d in dirs if d not in (xp, xp_rejudged)], base / "leaderboards" / "rooms", cells=cells,
                         back=back, page_size=7)
    return base / "leaderboards", res


def judge_row(res, name):
    return next(j for j in res["judges"] if j["judge"] == name)
