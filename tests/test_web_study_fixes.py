"""Human-study fixes (issue 36, item 6): the organiser page says how many items can ever be judged (a
judge never sees a question twice, at most --per-judge each); a room left out for a protocol given
--live does not suggest --live again; an unset confidence is said on the page (the form lets no
browser block the submit silently); a human's deviations are not the source's model judge's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_web import Judge, app_for, decisions, make_study
from web_helpers import form_fields, make_source

pytest.importorskip("starlette")


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return make_source(tmp_path_factory.mktemp("fixes") / "src")


def _organiser(study) -> str:
    client = Judge(app_for(study, token="organiser-token"))
    page = client.get("/organiser?token=organiser-token")
    assert page.status_code == 200
    return page.text


def _reach_text(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", re.search(r'<p id="reach">(.*?)</p>', page, re.S).group(1)))


def test_the_organiser_page_says_how_many_items_can_ever_be_judged(source, tmp_path):
    study = make_study(source, tmp_path / "out", per_judge=4)
    try:
        keys = study.register_judges(["alice", "bob"])
        n_items = len(study.items)
        n_questions = len({(it.question.task, it.question.id) for it in study.items})
        assert n_items > n_questions > 4  # the same question under several protocols: items a judge never all sees
        text = _reach_text(_organiser(study))
        assert f"At most 8 of the {n_items} items can ever be judged: 2 judges × 4 each" in text
        assert "never sees a question twice" in text and f"({n_questions})" in text and "--per-judge" in text
        decided = 0
        for name in ("alice", "bob"):
            person = Judge(app_for(study))
            person.join(keys[name])
            decided += person.judge_all()["decided"]
        assert decided == 8  # what the page said, no more
    finally:
        study.close()


def test_without_a_cap_a_judge_reaches_one_item_per_question(source, tmp_path):
    study = make_study(source, tmp_path / "out")
    try:
        n_questions = len({(it.question.task, it.question.id) for it in study.items})
        text = _reach_text(_organiser(study))  # no judges registered: no total, the per-judge bound
        assert f"each judge can judge at most {n_questions} of them" in text and "no judges registered" in text
        assert Judge(app_for(study), "cam").judge_all()["decided"] == n_questions
    finally:
        study.close()


def test_a_protocol_given_live_is_not_suggested_again(source, tmp_path):
    """The source's 2-round consultancies cannot be judged again (its LLM judge's questions are in them):
    without --live consultancy the study suggests it; with it, it says they are judged live instead."""
    study = make_study(source, tmp_path / "live", live=["consultancy"])
    try:
        (why,) = [s["reason"] for s in study.skipped if s["protocol"] == "consultancy"]
        assert "--live consultancy --agent" not in why and "judged live instead (--live consultancy)" in why
        assert "judge it live instead" not in _organiser(study)
    finally:
        study.close()
    study = make_study(source, tmp_path / "stored", live=[])
    try:
        (why,) = [s["reason"] for s in study.skipped if s["protocol"] == "consultancy"]
        assert "judge it live instead: --live consultancy --agent SPEC" in why
    finally:
        study.close()


def test_an_unset_confidence_is_said_on_the_page_and_the_chosen_answer_kept(source, tmp_path):
    study = make_study(source, tmp_path / "out", live=[])
    try:
        j = Judge(app_for(study), "dee")
        page = j.get("/judge")
        form = re.search(r'<form method="post" action="/judge/decide"[^>]*>', page.text).group(0)
        assert "novalidate" in form  # no browser blocks the submit silently: the server answers
        assert "Required: a decision without it is not sent." in page.text
        f = form_fields(page.text)
        back = j.post("/judge/decide", {**f, "choice": "2", "confidence": ""})
        assert back.url.query == b"error=confidence&choice=2"
        assert 'id="error">Not sent: your confidence is missing' in back.text
        assert re.search(r'id="choice2" name="choice" value="2" checked', back.text)
        assert re.search(r'<input[^>]*id="confidence"[^>]*autofocus', back.text)
        back = j.post("/judge/decide", {**f, "confidence": "70"})
        assert back.url.query == b"error=choice" and "choose answer 1 or 2 first" in back.text
        back = j.post("/judge/decide", {**f, "choice": "1", "confidence": "40"})
        assert back.url.query == b"error=confidence&choice=1"
        assert study.progress("dee")[0] == 0 and decisions(tmp_path / "out")[0] == []
        assert j.post("/judge/decide", {**f, "choice": "1", "confidence": "70"}).url.path == "/judge"
        assert study.progress("dee")[0] == 1
    finally:
        study.close()


def test_a_humans_deviations_are_not_the_source_judges(tmp_path):
    """A source judged by a model in cot mode with few-shot examples, a temperature and a small token
    budget: the study records none of that judge's settings or deviations (a person has none), and keeps
    the source's transcripts' own (sample size, rounds)."""
    from helpers import cli

    src = tmp_path / "src"
    res = cli("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "prontoqa", "--limit", "3",
              "--protocols", "qa_without_article,debate", "--rounds", "1", "--judge-mode", "cot", "--few-shot", "0",
              "-o", "judge_temperature=0.7", "--output", str(src), "--quiet")
    assert res.exit_code == 0, res.output
    src_devs = json.loads((src / "config.json").read_text())["deviations"]
    judge_devs = [d for d in src_devs if d.startswith(("judge", "few-shot", "no few-shot"))]
    assert any("temperature" in d for d in judge_devs) and any("cot" in d.lower() or "chain" in d.lower() for d in judge_devs)
    out = tmp_path / "study"
    study = make_study(src, out, live=[])
    try:
        Judge(app_for(study), "eve").judge_all()
    finally:
        study.close()
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["options"]["judge_mode"] == "predict" and "judge_temperature" not in cfg["options"]
    assert not set(judge_devs) & set(cfg["deviations"]), set(judge_devs) & set(cfg["deviations"])
    assert not any("temperature" in d or "cot" in d.lower() for d in cfg["deviations"])
    assert any("limit 3" in d for d in src_devs) and any("limit 3" in d for d in cfg["deviations"])  # the transcripts' own
