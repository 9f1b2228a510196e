"""The human-judging web app (`oversight-bench serve`, human_judging/) driven over HTTP: records,
study design, security, leaks, escaping, resume after a kill. The browser test is test_web_browser.py."""

from __future__ import annotations

import html
import json
from pathlib import Path
import re
import signal
import warnings
from collections import Counter

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette 1.x asks for httpx2 but still works with httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from helpers import DATA, REPO, cli, stored_records  # noqa: E402
from web_helpers import form_fields, free_port, make_source, question_text, register_plugin, start_server  # noqa: E402


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return make_source(tmp_path_factory.mktemp("web") / "src")


class Judge:
    """One person's browser: follows redirects and keeps every response for the leak check."""

    def __init__(self, app, name: str | None = None, **kw):
        self.c = TestClient(app, **kw)
        self.responses = []
        if name:
            self.sign_in(name)

    def get(self, url, **kw):
        r = self.c.get(url, **kw)
        self.responses.extend([*r.history, r])
        return r

    def post(self, url, data, **kw):
        r = self.c.post(url, data=data, **kw)
        self.responses.extend([*r.history, r])
        return r

    def sign_in(self, name):
        page = self.get("/")
        return self.post("/signin", {"csrf": form_fields(page.text)["csrf"], "name": name})

    def join(self, key):
        """Open a personal link."""
        return self.get(f"/?key={key}")

    def step(self, choice=1, confidence=80, reason="", question="Why do you claim that?"):
        """Act on the current page: ask when asked for a question, else decide. Returns (kind, page)."""
        page = self.get("/judge")
        if "nothing more for you to judge" in page.text:
            return "finished", page
        f = form_fields(page.text)
        if 'action="/judge/ask"' in page.text:
            return "asked", self.post("/judge/ask", {**f, "question": question})
        return "decided", self.post("/judge/decide", {**f, "choice": str(choice), "confidence": str(confidence), "reason": reason})

    def judge_all(self, **kw):
        kinds = Counter()
        while True:
            kind, _ = self.step(**kw)
            if kind == "finished":
                return kinds
            kinds[kind] += 1


def make_study(source, out, **kw):
    from human_judging.study import Study

    kw.setdefault("agent", "scripted:default")
    kw.setdefault("live", ["consultancy"])
    kw.setdefault("option_overrides", {"rounds": 2})
    return Study(str(source), str(out), **kw)


def app_for(study, **kw):
    from human_judging.app import create_app

    return create_app(study, allowed_hosts=["testserver"], **kw)


def decisions(out):
    from oversight_bench.rundir.store import Store

    st = Store.open(out)
    try:
        return list(stored_records(st, "decision")), list(stored_records(st, "turn"))
    finally:
        st.close()


# -- the plugin ---------------------------------------------------------------------------------------


def test_serve_is_a_plugin_command():
    """`serve` and `view` arrive through the register_commands hook of the installed `web` entry point
    (that the core never imports the package is tests/test_layering.py's rule)."""
    from importlib.metadata import entry_points

    group = register_plugin()
    assert {"serve", "view"} <= set(group.commands)
    assert {ep.value for ep in entry_points(group="oversight_bench") if ep.name == "web"} == {"human_judging"}


def test_serve_takes_a_suite_instead_of_a_run(source, tmp_path, monkeypatch):
    """`--suite` names what `judge --suite` takes (a registered suite, or a run directory); exactly
    one of --from and --suite."""
    import human_judging

    register_plugin()
    served = []
    monkeypatch.setattr(human_judging, "run_app", lambda app, sock: served.append(sock))
    res = cli("serve", "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and "exactly one of --from" in res.output
    res = cli("serve", "--from", str(source), "--suite", "nyu-2023", "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and "exactly one of --from" in res.output
    res = cli("serve", "--suite", str(source), "--output", str(tmp_path / "o"))
    assert res.exit_code == 0, res.output
    assert served and re.search(rf"serving \d+ items \(\d+ questions\) from {re.escape(str(source))}", res.output)
    res = cli("serve", "--suite", "no-such-suite", "--output", str(tmp_path / "o2"))
    assert res.exit_code == 2 and "unknown suite" in res.output


def test_a_study_of_imported_rooms_says_whose_judge_spoke_and_records_no_model_settings(tmp_path, monkeypatch):
    """On nyu-2023 (people's debates with live human judges): consultancies are left out because their
    live judge asked questions (not "their LLM judge"), and the study's config holds no model-judge
    sampling settings and no agent options of ours (the import recorded none)."""
    if not (DATA / "quality" / "michael2023_debates").is_dir():
        pytest.skip("needs the NYU debates")
    from oversight_bench.suites import get_suite

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    study = make_study(get_suite("nyu-2023").materialize(), tmp_path / "out", agent=None, live=[], option_overrides={})
    try:
        (skip,) = study.skipped
        assert skip["protocol"] == "consultancy" and skip["count"] == 172
        assert skip["reason"].startswith("their source's live judge asked questions in them")
    finally:
        study.close()
    cfg = json.loads((tmp_path / "out" / "config.json").read_text())
    assert not {"judge_temperature", "judge_max_tokens", "predict_max_tokens", "rounds", "best_of_n"} & set(cfg["options"])
    assert not any(d.startswith("judge temperature") for d in cfg["deviations"])
    assert any(d.startswith("source transcripts (Michael et al. 2023)") for d in cfg["deviations"])


def test_serve_refuses_lan_without_token(source, tmp_path):
    register_plugin()
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--host", "0.0.0.0")
    assert res.exit_code == 2 and "--judges" in res.output
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--host", "0.0.0.0", "--token", "organiser-only")
    assert res.exit_code == 2 and "--judges" in res.output  # the study token no longer lets judges in
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--judges", "al ice")
    assert res.exit_code == 2 and "judge name" in res.output
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--new-links")
    assert res.exit_code == 2 and "--new-links needs --judges" in res.output
    names = tmp_path / "judges.txt"
    names.write_text("# the study's judges\nbob\ncarol  # second\n\nalice\n")
    from human_judging import judge_names

    assert judge_names("alice, dan", str(names)) == ["alice", "dan", "bob", "carol"]
    assert not (tmp_path / "o").exists()  # validated before anything is written
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--live", "consultancy")
    assert res.exit_code == 2 and "--agent" in res.output
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--live", "consultancy", "--agent", "nope:x")
    assert res.exit_code == 2 and "unknown model" in res.output
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "--live", "qa_with_article", "--agent", "scripted:default")
    assert res.exit_code == 2 and "live judging supports" in res.output
    res = cli("serve", "--from", str(source), "--output", str(tmp_path / "o"), "-o", "rounds=99")
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0 and "rounds" in res.output
    assert not (tmp_path / "o").exists()


def test_live_debate(source, tmp_path):
    """Live debate: the app runs both debaters, the human reads and decides; stored like an LLM-judged debate."""
    out = tmp_path / "out"
    study = make_study(source, out, live=["debate"])
    study.items = [it for it in study.items if it.live]
    try:
        kinds = Judge(app_for(study), "liz").judge_all()
    finally:
        study.close()
    recs, turns = decisions(out)
    assert kinds == {"decided": 6} and len(recs) == 6 and all(r["job_key"].endswith("|live") for r in recs)
    src_debate = [t for t in decisions(source)[1] if t["protocol"] == "debate"]
    by_job = Counter(t["job_key"] for t in turns)
    assert set(by_job.values()) == {4} and [t["speaker"] for t in turns[:4]] == [t["speaker"] for t in src_debate[:4]]  # rounds=2
    assert set(turns[0]) == set(src_debate[0])


# -- records --------------------------------------------------------------------------------------------


def test_decisions_are_ordinary_records_and_report_shows_the_human(source, tmp_path):
    out = tmp_path / "out"
    study = make_study(source, out)
    try:
        alice = Judge(app_for(study), "alice")
        kinds = alice.judge_all(choice=2, confidence=70, reason="the second one")
    finally:
        study.close()
    assert kinds["asked"] >= 1  # live consultancy with rounds=2: one question between the rounds
    recs, turns = decisions(out)
    assert len(recs) == kinds["decided"] == 6  # six distinct questions in the source
    assert {r["judge"] for r in recs} == {"human:alice"}
    for r in recs:
        assert r["answer"] == 2 and r["probs"] == [0.3, 0.7] and r["correct"] == (r["correct_index"] == 2)
        assert r["extra"]["human"]["confidence"] == 0.7 and r["extra"]["human"]["reason"] == "the second one"
        assert r["extra"]["human"]["time_s"] >= 0
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["kind"] == "judge" and cfg["source"] == str(source) and cfg["options"]["judge_mode"] == "predict"
    # a person has no sampling settings: the source's model-judge temperature and budgets are not
    # inherited, neither in the options recorded nor in the deviations declared
    src_cfg = json.loads((Path(source) / "config.json").read_text())
    assert "judge_temperature" in src_cfg["options"] and any(d.startswith("judge temperature") for d in src_cfg["deviations"])
    assert not {"judge_temperature", "judge_max_tokens", "predict_max_tokens", "qa_samples"} & set(cfg["options"])
    assert not any(d.startswith(("judge temperature", "judge predict-mode", "judge question and")) for d in cfg["deviations"])
    assert cfg["options"]["rounds"] == 2  # the live agent's own options stay
    # a stopped study writes results.json and samples.jsonl as any run's end does (issue 36, item 7)
    results = json.loads((out / "results.json").read_text())
    assert {c["judge"] for c in results["cells"]} == {"human:alice"} and results["jobs"]["decisions"] == 6
    assert len((out / "samples.jsonl").read_text().splitlines()) == 6
    live = [t for t in turns if t["protocol"] == "consultancy"]
    assert [t["role"] for t in live] == ["consultant", "judge", "consultant"]
    assert live[1]["shown"] == "Why do you claim that?" and live[1]["extra"] == {"kind": "question"}
    # the same record fields as an LLM-judged consultancy of the source run
    src_turn = next(t for t in decisions(source)[1] if t["protocol"] == "consultancy" and t["role"] == "judge")
    assert set(live[1]) == set(src_turn)
    res = cli("report", str(out), str(source), "--output", str(tmp_path / "rep"), "--no-figures")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "human:alice" in md and "scripted:default" in md
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert any(c["judge"] == "human:alice" and c["brier"] is not None for c in rep["calibration"])
    # a person's cost is their time: no agent calls or tokens in their rows (the live room's calls are the agent's)
    mine = [g for g in rep["groups"] if g["judge"] == "human:alice"]
    assert mine and any(g["protocol"] == "consultancy" for g in mine)
    assert all(g[k] is None for g in mine for k in ("calls_per_question", "tokens_per_question", "seconds_per_question"))
    assert any(g["calls_per_question"] for g in rep["groups"] if g["judge"] == "scripted:default")
    every = next(h for h in rep["human_judges"] if h["judge"] == "human:alice" and h["protocol"] == "all")
    times = sorted(r["extra"]["human"]["time_s"] for r in recs)
    assert every["n"] == 6 and every["n_reasons"] == 6 and every["seconds_median"] == pytest.approx((times[2] + times[3]) / 2)
    assert len(rep["human_reasons"]) == 6 and {r["reason"] for r in rep["human_reasons"]} == {"the second one"}
    # human vs model, paired on the rooms (transcripts) both judged: the stored ones, never the live ones
    shared = {r["job_key"] for r in recs if not r["job_key"].endswith("|live")}
    model = {}
    for d in decisions(source)[0]:
        if d["job_key"] in shared:
            model.setdefault(d["job_key"], []).append(d["correct"])
    row = next(r for r in rep["human_vs_model"] if r["human"] == "human:alice" and r["model"] == "scripted:default"
               and r["protocol"] == "all")
    assert row["n"] == len(shared) >= 2 and row["p_value"] is not None
    assert row["human_accuracy"] == pytest.approx(sum(r["correct"] for r in recs if r["job_key"] in shared) / len(shared))
    assert row["model_accuracy"] == pytest.approx(sum(sum(v) / len(v) for v in model.values()) / len(shared))
    assert "## Human judges" in md and "the second one" in md and "same rooms" in md
    res = cli("leaderboard", str(out), str(source), "--output", str(tmp_path / "lb"))
    assert res.exit_code == 0, res.output
    rows = json.loads((tmp_path / "lb" / "results.json").read_text())["judges"]
    assert {"human:alice", "scripted:default"} <= {r["judge"] for r in rows}  # a human row next to the LLM judge
    assert next(r for r in rows if r["judge"] == "human:alice")["kind"] == "human"


# -- study design -----------------------------------------------------------------------------------


def _assignments(out):
    import sqlite3

    con = sqlite3.connect(out / "human_study.sqlite")
    try:
        return con.execute("SELECT judge, protocol, task, question_id, assignment, answer_order FROM assignments ORDER BY n").fetchall()
    finally:
        con.close()


def test_study_design_unique_questions_balanced_seeded(source, tmp_path):
    out = tmp_path / "out"
    study = make_study(source, out, seed=3)
    try:
        app = app_for(study)
        judges = [Judge(app, n) for n in ("ann", "ben", "cat", "dan")]
        for _ in range(3):  # several judges at once, interleaved
            for j in judges:
                j.step()
        for j in judges:
            j.judge_all()
    finally:
        study.close()
    rows = _assignments(out)
    for name in ("ann", "ben", "cat", "dan"):
        mine = [r for r in rows if r[0] == name]
        qs = [(r[2], r[3]) for r in mine]
        assert len(qs) == len(set(qs)) == 6  # never the same question twice, across protocols and orders
        assert len({r[1] for r in mine[:3]}) == 3  # protocols balanced for each judge
    firsts = [next(r for r in rows if r[0] == n)[1:4] for n in ("ann", "ben", "cat", "dan")]
    assert len(set(firsts)) == 4  # spread across judges
    cons = Counter(r[4] for r in rows if r[1] == "consultancy")
    assert abs(cons["correct"] - cons["incorrect"]) <= 1  # live assignments balanced
    # the same seed and the same clicks give the same queue; another seed another one
    queues = []
    for i, seed in enumerate((3, 3, 4)):
        study = make_study(source, tmp_path / f"again{i}", seed=seed)
        try:
            Judge(app_for(study), "ann").judge_all()
        finally:
            study.close()
        queues.append([r[1:] for r in _assignments(tmp_path / f"again{i}")])
    assert queues[0] == queues[1] and queues[0] != queues[2]


def test_per_judge_limit_and_resume_by_name(source, tmp_path):
    out = tmp_path / "out"
    study = make_study(source, out, per_judge=2)
    try:
        app = app_for(study)
        first = Judge(app, "eve")
        q = question_text(first.get("/judge").text)
        second = Judge(app, "eve")  # another browser: the same open item
        assert question_text(second.get("/judge").text) == q
        assert second.judge_all() and first.step()[0] == "finished"
    finally:
        study.close()
    assert len(decisions(out)[0]) == 2


# -- security and leaks ---------------------------------------------------------------------------------


def test_nothing_leaks_before_the_decision(source, tmp_path):
    """Every response of two judges' sessions is searched for the correct answer's position, the
    assignment, job keys, the other judge's decisions and extractive articles."""
    out = tmp_path / "out"
    study = make_study(source, out)
    try:
        app = app_for(study)
        quinn = Judge(app, "quinn")
        quinn.judge_all(reason="quinn-secret-reason-xyz")
        amy = Judge(app, "amy")
        amy.judge_all()
        questions = dict(study.store.questions())
    finally:
        study.close()
    recs, _ = decisions(out)
    forbidden = ["correct_first", "correct_second", "correct_index", "assignment", "job_key", "|live",
                 "quinn-secret-reason-xyz", "human:quinn", "probs"]
    forbidden += [r["job_key"] for r in recs] + [r["question_id"] for r in recs]
    articles = [q.article[:200] for q in questions.values() if q.article]
    for r in amy.responses:
        page = html.unescape(r.text)
        text = page + json.dumps(dict(r.headers)) + str(r.url)
        for s in forbidden:
            assert s not in text, (s, str(r.url))
        assert "quinn" not in text.lower()
        if "Read the article" not in r.text:
            assert not any(a in text for a in articles), str(r.url)
        for q in questions.values():  # the correct answer is never marked: it appears as often as the other
            body = re.sub(r'<ol class="answers">.*?</ol>|<h2 id="question-text">.*?</h2>|<div id="article">.*?</div>', "",
                          page, flags=re.S)  # unescaped: the choices carry both answers, "'" included
            assert body.count(q.correct) == body.count(q.incorrect) or q.correct in q.incorrect or q.incorrect in q.correct
        assert not re.search(r'value="(?!1"|2")[^"]*correct', r.text)
    # a QA-with-article page shows the article; no other page does
    assert any("Read the article" in r.text and any(a in html.unescape(r.text) for a in articles) for r in amy.responses)


def test_token_csrf_and_escaping(source, tmp_path):
    from model_adapters.scripted import register_script

    register_script("web-evil", lambda messages, n, seed: [
        "Thinking: plan.\nArgument: <script>alert(1)</script> <passage>not in the article</passage> \"quoted\""] * n)
    out = tmp_path / "out"
    study = make_study(source, out, agent="scripted:web-evil")
    study.items = [it for it in study.items if it.live and it.question.task_type == "extractive"]  # passages
    try:
        key = study.register_judges(["zed"])["zed"]
        app = app_for(study, token="s3cret-token")
        stranger = TestClient(app, follow_redirects=False)
        assert stranger.get("/judge").headers["location"] == "/"  # no session, no judging
        assert 'action="/signin"' not in stranger.get("/").text  # registered judges: personal links only
        assert stranger.post("/signin", data={"name": "zed"}).status_code == 403
        assert stranger.get("/organiser").status_code == 403
        assert TestClient(app).get("/organiser", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
        j = Judge(app)
        r = j.join(key)  # the personal link: a session cookie, then a clean URL
        assert r.status_code == 200 and "key" not in str(r.url) and r.history[0].status_code == 303
        assert key not in r.text and "judge zed" in r.text
        for _ in range(12):
            page = j.get("/judge")
            if 'action="/judge/ask"' in page.text:
                break
            j.step()
        assert 'action="/judge/ask"' in page.text, "no live consultancy reached"
        assert "<script>" not in page.text and "&lt;script&gt;" in page.text
        assert '<span class="u-passage"' in page.text  # passages rendered as the protocols define them
        f = form_fields(page.text)
        assert j.post("/judge/ask", {**f, "csrf": "forged", "question": "q"}).status_code == 403
        j.post("/judge/ask", {**f, "question": "<img src=x onerror=alert(1)>?"})
        page = j.get("/judge")
        assert "<img src=x" not in page.text and "&lt;img src=x onerror=alert(1)&gt;?" in page.text
        assert "script-src" not in page.headers["content-security-policy"] and "default-src 'none'" in page.headers["content-security-policy"]
        f = form_fields(page.text)
        assert j.post("/judge/decide", {**f, "csrf": "forged", "choice": "1", "confidence": "90"}).status_code == 403
        assert j.post("/judge/decide", {**f, "choice": "3", "confidence": "90"}).url.query == b"error=choice"
    finally:
        study.close()
    assert decisions(out)[0] == []  # nothing forged or invalid was stored


def test_signin_by_name_checks_csrf_and_signout_ends_the_session(source, tmp_path):
    """The local single-judge use (no registered judges): a name signs in, behind a CSRF check;
    signing out deletes the session on the server, so a copy of the cookie no longer works."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app = app_for(study)
        j = Judge(app)
        j.get("/")
        assert j.post("/signin", {"csrf": "forged", "name": "sam"}).status_code == 403
        j.sign_in("sam")
        page = j.get("/judge")
        assert "judge sam" in page.text
        stolen = j.c.cookies.get("ob_session")
        assert j.post("/signout", {"csrf": "forged"}).status_code == 403
        j.post("/signout", {"csrf": re.search(r'name="csrf" value="([^"]*)"', page.text).group(1)})
        replay = TestClient(app, follow_redirects=False, cookies={"ob_session": stolen})
        r = replay.get("/judge")
        assert r.status_code == 303 and r.headers["location"] == "/"
        f = form_fields(page.text)
        assert replay.post("/judge/decide", data={**f, "choice": "1", "confidence": "90"}).headers["location"] == "/"
    finally:
        study.close()
    assert decisions(tmp_path / "out")[0] == []


def test_judges_are_who_they_say(source, tmp_path):
    """Registered judges sign in only by their personal links (stored hashed); one judge cannot see
    or decide another's item; new links end the old ones; the organiser's page needs the study token."""
    out = tmp_path / "out"
    study = make_study(source, out, live=[])
    try:
        keys = study.register_judges(["alice", "bob"])
        assert set(keys) == {"alice", "bob"} and study.register_judges(["alice", "bob"]) == {}  # kept, not re-shown
        app = app_for(study, token="organiser-token")
        nobody = Judge(app)
        assert nobody.get("/?key=not-a-key").status_code == 403
        assert nobody.post("/signin", {"csrf": "x", "name": "alice"}).status_code == 403  # no name sign-in
        alice, bob = Judge(app), Judge(app)
        a_page, b_page = alice.join(keys["alice"]), bob.join(keys["bob"])
        assert "judge alice" in a_page.text and "judge bob" in b_page.text
        fa, fb = form_fields(a_page.text), form_fields(b_page.text)
        assert fa["id"] not in b_page.text and fa["csrf"] != fb["csrf"]
        # bob submits alice's item: with his own CSRF token it is not his open item; with hers, forbidden
        assert bob.post("/judge/decide", {"csrf": fb["csrf"], "id": fa["id"], "choice": "1", "confidence": "90"}).url.path == "/judge"
        assert bob.post("/judge/decide", {**fa, "choice": "1", "confidence": "90"}).status_code == 403
        assert study.progress("alice")[0] == 0 and study.current("alice")["id"] == fa["id"]
        assert alice.step()[0] == "decided"
        # the organiser's page: the token, not a judge's session
        assert alice.get("/organiser").status_code == 403
        org = Judge(app)
        page = org.get("/organiser?token=organiser-token")
        assert page.status_code == 200 and "token" not in str(page.url)
        rows = dict(re.findall(r'data-judge="(\w+)">.*?<td class="done">(\d+)</td>', page.text, re.S))
        assert rows == {"alice": "1", "bob": "0"}
        assert fa["id"] not in page.text and keys["alice"] not in page.text
        # a new link for alice: the old one and her open sessions end
        new = study.register_judges(["alice"], new_links=True)["alice"]
        assert alice.get("/judge").url.path == "/" and alice.join(keys["alice"]).status_code == 403
        assert "judge alice" in alice.join(new).text
    finally:
        study.close()
    recs, _ = decisions(out)
    assert [r["judge"] for r in recs] == ["human:alice"]
    for f in out.rglob("*"):  # the secrets are nowhere in OUT (only their hashes)
        if f.is_file():
            data = f.read_bytes()
            assert not any(k.encode() in data for k in (*keys.values(), new)), f


def test_the_organiser_cookie_is_a_session_of_this_server_not_the_token(source, tmp_path):
    """Issue 37 (probe 710): the organiser link set `ob_organiser=TOKEN`; cookies ignore ports, so any
    other server on 127.0.0.1 the organiser's browser visited received the study token and could open
    /organiser with it as a Bearer token. The cookie holds a session only this server made: it opens
    the page here, is no Bearer token, and another server's (or a made-up) session opens nothing."""
    study = make_study(source, tmp_path / "out", live=[])
    try:
        app, other = app_for(study, token="organiser-token"), app_for(study, token="organiser-token")
        org = TestClient(app, follow_redirects=False)
        link = org.get("/organiser?token=organiser-token")
        assert link.status_code == 303
        session = org.cookies.get("ob_organiser")
        assert session and "organiser-token" not in link.headers.get("set-cookie", "")
        assert org.get("/organiser").status_code == 200  # the session opens the page on this server
        assert TestClient(app).get("/organiser", headers={"Authorization": f"Bearer {session}"}).status_code == 403
        assert TestClient(other, cookies={"ob_organiser": session}).get("/organiser").status_code == 403
        assert TestClient(app, cookies={"ob_organiser": "organiser-token"}).get("/organiser").status_code == 403
        assert TestClient(app).get("/organiser", headers={"Authorization": "Bearer organiser-token"}).status_code == 200
    finally:
        study.close()


def test_decision_needs_an_explicit_confidence_and_shows_the_answers(source, tmp_path):
    """No confidence is pre-filled (an untouched form records nothing), and each choice carries its
    answer's text, so the judge need not scroll back to the question."""
    out = tmp_path / "out"
    study = make_study(source, out, live=[])
    try:
        j = Judge(app_for(study), "cam")
        page = j.get("/judge")
        conf = re.search(r'<input[^>]*id="confidence"[^>]*>', page.text).group(0)
        assert "value=" not in conf  # nothing pre-filled; not `required`: the page, not the browser, says what is missing
        a1 = re.search(r'<li id="answer1"><span class="num">1</span> (.*?)</li>', page.text, re.S).group(1)
        a2 = re.search(r'<li id="answer2"><span class="num">2</span> (.*?)</li>', page.text, re.S).group(1)
        for n, text in ((1, a1), (2, a2)):
            label = re.search(rf'<label[^>]*id="choice{n}-label">(.*?)</label>', page.text, re.S).group(1)
            assert f'id="choice{n}"' in label and text.strip() in label
        f = form_fields(page.text)
        assert j.post("/judge/decide", {**f, "choice": "1"}).url.query == b"error=confidence&choice=1"
        assert j.post("/judge/decide", {**f, "choice": "1", "confidence": ""}).url.query == b"error=confidence&choice=1"
        assert study.progress("cam")[0] == 0
    finally:
        study.close()
    assert decisions(out)[0] == []


def _terminal_until(proc, word: str) -> str:
    """The server's terminal output up to the first line holding `word`."""
    lines = []
    while not lines or word not in lines[-1]:
        line = proc.stdout.readline()
        assert line, "the server exited: " + "".join(lines)
        lines.append(line)
    return "".join(lines)


def test_serve_announces_skipped_rooms_and_prints_personal_links_once(source, tmp_path):
    """`serve --judges`: each judge's link on the terminal (once), the organiser's link with a fresh
    token, every room left out with its reason; the links work against the real server."""
    import httpx

    out, port = tmp_path / "out", free_port()
    proc = start_server("--from", str(source), "--output", str(out), "--judges", "alice,bob", port=port)
    try:
        text = _terminal_until(proc, "organiser")
        skipped = re.search(r"skipped (\d+) consultancy transcripts: (.*)", text)
        assert skipped and "between its 2 rounds" in skipped.group(2) and "--live consultancy" in skipped.group(2)
        links = dict(re.findall(r"  (alice|bob): (http://\S+)", text))
        assert set(links) == {"alice", "bob"}
        organiser = re.search(r"organiser .*?(http://\S+)", text).group(1)
        c = httpx.Client(follow_redirects=True)
        assert "judge alice" in c.get(links["alice"]).text
        page = httpx.Client(follow_redirects=True).get(organiser)
        assert page.status_code == 200 and 'data-judge="bob"' in page.text and "consultancy transcripts" in page.text
        assert httpx.get(organiser.split("?")[0]).status_code == 403
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    rest = proc.stdout.read()
    proc = start_server("--from", str(source), "--output", str(out), "--judges", "alice,bob", port=port)
    try:  # served again: the links stand and are not shown again
        again = _terminal_until(proc, "organiser")
        assert "the link given before still works" in again and links["alice"] not in again
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    secrets_ = [u.split("key=")[1] for u in links.values()]
    assert not any(k in rest for k in secrets_)
    for f in out.rglob("*"):
        if f.is_file():
            assert not any(k.encode() in f.read_bytes() for k in secrets_), f


def test_killed_server_loses_no_decision_and_resumes(source, tmp_path):
    """SIGKILL the real server (uvicorn) between decisions: stored ones stay, the judge resumes."""
    import httpx

    out, port = tmp_path / "out", free_port()
    args = ("--from", str(source), "--output", str(out), "--agent", "scripted:default", "--live", "consultancy",
            "-o", "rounds=2")
    proc = start_server(*args, port=port)
    base = f"http://127.0.0.1:{port}"
    try:
        c = httpx.Client(base_url=base, follow_redirects=True)
        page = c.get("/")
        c.post("/signin", data={"csrf": form_fields(page.text)["csrf"], "name": "kim"})
        done = 0
        while done < 2:
            page = c.get("/judge")
            f = form_fields(page.text)
            if 'action="/judge/ask"' in page.text:
                c.post("/judge/ask", data={**f, "question": "Why?"})
            else:
                c.post("/judge/decide", data={**f, "choice": "1", "confidence": "60"})
                done += 1
        open_item = question_text(c.get("/judge").text)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len(decisions(out)[0]) == 2
    proc = start_server(*args, port=port)
    try:
        assert question_text(c.get("/judge").text) == open_item  # the same session, the same open item
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert len(decisions(out)[0]) == 2


@pytest.mark.integration
def test_live_consultancy_with_a_real_local_model(source, tmp_path):
    """One live consultancy round trip with llama.cpp's qwen2.5-coder-0.5b as the consultant."""
    pytest.importorskip("llama_cpp")
    out = tmp_path / "out"
    study = make_study(source, out, agent="llamacpp:qwen2.5-coder-0.5b", live=["consultancy"],
                       option_overrides={"rounds": 2, "thinking_max_tokens": 48, "argument_max_tokens": 64})
    study.items = [it for it in study.items if it.live][:1]
    try:
        j = Judge(app_for(study), "liv")
        assert j.step()[0] == "asked"
        assert j.step()[0] == "decided"
    finally:
        study.close()
    recs, turns = decisions(out)
    assert len(recs) == 1 and recs[0]["agent"] == "llamacpp:qwen2.5-coder-0.5b"
    assert [t["role"] for t in turns] == ["consultant", "judge", "consultant"] and all(t["content"] for t in turns)


def test_failing_agent_is_one_line_and_recoverable(source, tmp_path):
    from model_adapters.scripted import register_script

    state = {"fail": True}

    def flaky(messages, n, seed):
        if state["fail"]:
            raise RuntimeError("backend down")
        return ["Thinking: x.\nArgument: back again."] * n

    register_script("web-flaky", flaky)
    out = tmp_path / "out"
    study = make_study(source, out, agent="scripted:web-flaky")
    study.items = [it for it in study.items if it.live]
    try:
        j = Judge(app_for(study), "fay")
        page = j.get("/judge")
        assert page.status_code == 502 and "RuntimeError" in page.text and "backend down" not in page.text
        state["fail"] = False
        assert j.step()[0] == "asked" and j.step()[0] == "decided"  # a reload continues
    finally:
        study.close()
    assert len(decisions(out)[0]) == 1


@pytest.mark.skipif(not (DATA / "quality" / "michael2023_debates").is_dir(), reason="needs the NYU debates")
def test_debate_intro_names_the_speakers_its_transcript_shows(tmp_path, monkeypatch):
    """Imported nyu-2023 rooms: the page introduces "Debater A" and "Debater B", the names every
    turn below it carries (and the debaters use for each other), never Alice and Bob."""
    from oversight_bench.suites import get_suite

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    src = get_suite("nyu-2023").materialize()
    judge = Judge(app_for(make_study(src, tmp_path / "out", live=[], option_overrides={}, per_judge=3)), "ann")
    seen = 0
    for _ in range(3):
        page = judge.get("/judge").text
        if "Two debaters argue" in page:
            seen += 1
            intro = re.search(r"Two debaters argue over the answer\.(.*?)Decide", page, re.S).group(1)
            assert re.sub(r"<[^>]+>", "", intro).strip() == "Debater A argues for answer 1 and Debater B argues for answer 2."
            assert "Alice" not in intro and "Debater A (round 1)" in page
        if judge.step()[0] == "finished":
            break
    assert seen
