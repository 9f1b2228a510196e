"""Transcript quality and invalid answers beside every accuracy: exact figures from small stores with
known argument-less, forced and cut turns and invalid answers, in the end-of-run summary, `report`,
`judge --suite` and the leaderboard; the quality bar keeps flagged cells out of the headlines; a
store written before budgets were recorded shows forced/cut as unknown, never 0."""

from __future__ import annotations

import json

import pytest

from oversight_bench.analysis.quality import Quality, quality
from oversight_bench.analysis.quality import flags as flag_data
from oversight_bench.render.quality_text import flag_texts
from oversight_bench.model_text import NO_ARGUMENT
from oversight_bench.questions import Question
from oversight_bench.rundir.store import Store

from helpers import FAKE, cli, decision_row, turn_record

JUDGE, AGENT = "sim:j", "sim:a"
QIDS = ["q1", "q2", "q3", "q4"]
ORDERS = ("correct_first", "correct_second")
# debate answers by (question, order): q2 wrong once, q3 one invalid answer (None)
DEBATE = {("q1", 0): 1, ("q1", 1): 2, ("q2", 0): 1, ("q2", 1): 1, ("q3", 0): 1, ("q3", 1): None,
          ("q4", 0): 1, ("q4", 1): 2}
# debate agent turns, 16 in job order: #3 argument-less, #0 and #5 forced, #1, #2 and #6 cut, #7 25 words
ARGUMENTLESS, FORCED, CUT, LONG = {3}, {0, 5}, {1, 2, 6}, {7}


def _budget(i: int) -> dict:
    return {"thinking_tokens": 1024 if i in FORCED else 100, "argument_tokens": 512 if i in CUT else 80,
            "forced": i in FORCED, "cut": i in CUT, "continued": "same generation"}


def _debate_turns(start: int, with_budget: bool) -> list[dict]:
    turns = []
    for k, speaker in enumerate(("Alice", "Bob")):
        i = start + k
        shown = NO_ARGUMENT if i in ARGUMENTLESS else " ".join(["word"] * (25 if i in LONG else 10))
        extra = {"budget": _budget(i)} if with_budget else {}
        turns.append({"round": 1, "role": "debater", "speaker": speaker, "content": "Argument: " + shown,
                      "shown": shown, "defends": k + 1, "extra": extra})
    turns.append({"round": 1, "role": "judge", "speaker": "Judge", "content": "why?", "shown": "why?", "defends": None,
                  "extra": {}})  # a judge turn is no agent turn
    return turns


def _job(st: Store, protocol: str, qid: str, o: int, answer, turns: list[dict], assignment=None) -> None:
    order = ORDERS[o]
    ci = 1 if o == 0 else 2
    fields = {"judge": JUDGE, "agent": AGENT, "protocol": protocol, "task": "mmlu", "question_id": qid,
              "assignment": assignment, "answer_order": order}
    st.write_job(f"{protocol}|mmlu|{qid}|{assignment or '-'}|{order}", fields, turns,
                 {"raw": "x", "answer": answer, "correct": None if answer is None else answer == ci, "probs": None,
                  "extra": {}, "correct_index": ci, "answers": ["a", "b"] if ci == 1 else ["b", "a"]})


def make_quality_run(directory, *, with_budget: bool = True):
    """debate: 8 decisions (1 invalid), 16 agent turns (1 argument-less, 2 forced, 3 cut);
    qa_without_article: a position picker (answer 1 in 8/8); consultancy: clean (all correct, balanced)."""
    st = Store.open(directory, write=True)
    try:
        st.put_questions([Question(id=q, task="mmlu", task_type="closed", question=f"{q}?", correct="a", incorrect="b")
                          for q in QIDS])
        n = 0
        for qid in QIDS:
            for o in (0, 1):
                _job(st, "debate", qid, o, DEBATE[(qid, o)], _debate_turns(n, with_budget))
                n += 2
                _job(st, "qa_without_article", qid, o, 1, [])
                budget = {"budget": {"thinking_tokens": 50, "argument_tokens": 60, "forced": False, "cut": False,
                                     "continued": None}} if with_budget else {}
                turn = {"round": 1, "role": "consultant", "speaker": "Consultant", "content": "c", "shown": "five words in this turn",
                        "defends": 1 if o == 0 else 2, "extra": budget}
                _job(st, "consultancy", qid, o, 1 if o == 0 else 2, [turn], assignment="correct")
        st.write_config({"judge": JUDGE, "agent": AGENT, "seed": 0, "commit": "synthetic"})
    finally:
        st.close()
    return directory


@pytest.fixture
def new_run(tmp_path):
    return make_quality_run(tmp_path / "new")


@pytest.fixture
def old_run(tmp_path):
    return make_quality_run(tmp_path / "old", with_budget=False)


DEBATE_FLAGS = ["argument-less agent turns 1/16", "cut 3/16 agent turns (> 10%)"]


def _check_debate(q: dict, with_budget: bool = True) -> None:
    assert q["n_agent_turns"] == 16 and q["n_argumentless"] == 1 and q["argumentless_rate"] == 1 / 16
    assert q["mean_argument_words"] == pytest.approx((14 * 10 + 25) / 15)
    if with_budget:
        assert (q["n_budget_turns"], q["forced_rate"], q["cut_rate"]) == (16, 2 / 16, 3 / 16)
    else:
        assert (q["n_budget_turns"], q["forced_rate"], q["cut_rate"]) == (0, None, None)
    assert (q["n_records"], q["n_invalid"], q["invalid_rate"]) == (8, 1, 1 / 8)
    assert (q["n_valid"], q["n_answer1"], q["answer1_share"]) == (7, 5, 5 / 7)
    # over valid answers: (1 + 0.5 + 1 + 1) / 4; invalid counted wrong: q3 is 1/2
    assert q["accuracy_invalid_wrong"] == pytest.approx(0.75)


def flags(fig: dict) -> list[str]:
    """The bar's reasons for `fig`, in words (`analysis.quality.flags` gives data; render words it)."""
    return flag_texts(flag_data(fig))


# -- the figures ----------------------------------------------------------------------------------------

def test_flags_are_the_quality_bar():
    assert flags({"n_argumentless": 0, "cut_rate": 0.10, "answer1_share": 0.9, "n_valid": 10, "n_answer1": 9}) == []
    assert flags({"n_argumentless": 0, "cut_rate": 0.11, "n_budget_turns": 100, "answer1_share": 0.5}) == \
        ["cut 11/100 agent turns (> 10%)"]
    assert flags({"n_argumentless": 0, "cut_rate": None, "answer1_share": 1 / 20, "n_valid": 20, "n_answer1": 1}) == \
        ["answers 2 in 19/20"]
    assert flags({"n_argumentless": 2, "n_agent_turns": 40, "cut_rate": None, "answer1_share": None}) == \
        ["argument-less agent turns 2/40"]


def test_flags_are_data_and_render_words_them():
    """analysis computes, render renders: the bar's reasons are codes and numbers (`Flag`), and only
    `render.quality_text` turns them into the sentences the tables and files print."""
    from oversight_bench.analysis.quality import CUT_BAR, FLAG_CODES, Flag
    from oversight_bench.render.quality_text import flag_text

    got = flag_data({"n_argumentless": 2, "n_agent_turns": 40, "cut_rate": 0.11, "n_budget_turns": 100,
                     "n_valid": 20, "n_answer1": 1})
    assert got == [Flag("argumentless", 2, 40), Flag("cut", 11, 100, bar=CUT_BAR), Flag("position", 19, 20, side=2)]
    assert all(isinstance(f, Flag) and f.code in FLAG_CODES for f in got)
    assert [flag_text(f) for f in got] == ["argument-less agent turns 2/40", "cut 11/100 agent turns (> 10%)",
                                           "answers 2 in 19/20"]
    assert flag_text(Flag("one_order_each", n=6)) == ("every one of its 6 questions right in exactly one of its two "
                                                      "answer orders (a position picker)")
    assert flag_texts([Flag("unmeasured"), "a carried build's reason"])[1] == "a carried build's reason"


def test_the_bar_sees_forced_turns_unverified_quotes_and_position_picking():
    """The bar's new lines: more than half the agent turns forced; more than a quarter of arguments
    mostly (> half their words) unverified quotes; a position picker by the binomial rule (≥ 75% on
    one side, p < 0.01 against 50%: 86.7% of 256 is one, which the old 90% line let pass); and a
    debiased judge whose plain per-order answers pick a position."""
    from oversight_bench.analysis.quality import position_picker, unverified_share

    assert flags({"forced_rate": 0.5, "n_budget_turns": 64}) == []
    assert flags({"forced_rate": 45 / 64, "n_budget_turns": 64}) == ["forced 45/64 agent turns (> 50%)"]
    assert unverified_share("<u_passage>a b c</u_passage> d") == 0.75
    assert unverified_share("<v_passage>a b c</v_passage> d <u_passage>e</u_passage>") == 0.2
    mostly = turn_record(role="debater", shown="I quote <u_passage>one two three four five six</u_passage> as said", extra={})
    fine = turn_record(role="debater", shown="my own words here and <v_passage>a verified one</v_passage>", extra={})
    ds = [decision_row(question_id=str(i), answer=1 + i % 2, correct=True) for i in range(4)]
    q = quality(ds, lambda d: [mostly if d.question_id in ("0", "1") else fine])
    assert (q["n_unverified_args"], q["unverified_args_rate"]) == (2, 0.5)
    assert flag_texts(q["flagged"]) == ["mostly unverified quotes in 2/4 arguments (> 25%)"]
    assert flag_texts(quality(ds, lambda d: [mostly if d.question_id == "0" else fine])["flagged"]) == []  # 1/4: at the bar
    assert position_picker(222, 256)[0] and position_picker(8, 8)[0] and not position_picker(7, 7)[0]
    assert not position_picker(190, 256)[0]  # 74%: fewer than half settled by position, though p is tiny
    assert flags({"n_valid": 256, "n_answer1": 222, "answer1_share": 222 / 256}) == ["answers 1 in 222/256"]
    # debiased: the averaged answers balance by construction; the plain per-order answers do not
    deb = [decision_row(question_id=str(i), answer=1 + i % 2, correct=True,
                        extra={"debiased": True, "orders": [{"answer_order": "correct_first", "probs": [0.9, 0.1]},
                                                            {"answer_order": "correct_second", "probs": [0.8, 0.2]}]})
           for i in range(8)]
    q = quality(deb)
    assert q["answer1_share"] == 0.5 and (q["n_plain"], q["plain_answer1_share"]) == (16, 1.0)
    assert flag_texts(q["flagged"]) == ["debiased, but its plain answer (each order alone) is 1 in 16/16 orders"]
    from oversight_bench.render.quality_text import answer1_text

    assert answer1_text(q) == "answer 1 in 50.0% of valid answers (debiased; plain, each order alone: 100.0% of 16 orders)"


def test_empty_cell():
    fig = Quality().figures()
    assert fig["forced_rate"] is None and fig["answer1_share"] is None and flag_texts(fig["flagged"]) == []


def test_quality_of_decisions_and_turns():
    ds = [decision_row(question_id="a", answer=1, correct=True),
          decision_row(question_id="a", answer=None, correct=None),
          decision_row(question_id="b", answer=2, correct=False, extra={"unjudged": True})]  # no answer at all: skipped
    turns = {"a": [turn_record(role="consultant", shown="one two three", extra={}), turn_record(role="agent", shown="1")]}
    q = quality(ds, lambda d: turns.get(d.question_id) if d.answer == 1 else [])
    assert (q["n_records"], q["n_invalid"], q["accuracy_valid"], q["accuracy_invalid_wrong"]) == (2, 1, 1.0, 0.5)
    assert (q["n_agent_turns"], q["mean_argument_words"], q["forced_rate"]) == (1, 3.0, None)
    assert flag_texts(q["flagged"]) == []  # one answer is no evidence of position picking (binomial p = 1)
    many = [decision_row(question_id=str(i), answer=1, correct=i % 2 == 0) for i in range(8)]
    assert flag_texts(quality(many[:7])["flagged"]) == [] and flag_texts(quality(many)["flagged"]) == ["answers 1 in 8/8"]


# -- the end-of-run summary ------------------------------------------------------------------------------

def _summary(directory):
    from oversight_bench.end_of_run import summarize

    st = Store.open(directory)
    try:
        return {r["protocol"]: r for r in summarize(st)}
    finally:
        st.close()


def test_summary_rows(new_run, old_run):
    rows = _summary(new_run)
    deb = rows["debate"]
    # 4 questions (8 answers, one invalid): per question 1, 0.5, 1, 1
    assert (deb["n"], deb["n_records"], deb["n_invalid"], deb["accuracy"], deb["accuracy_invalid_wrong"]) == (4, 8, 1, 0.875, 0.75)
    assert (round(deb["ci_low"], 3), deb["ci_high"]) == (0.63, 1.0)
    _check_debate(deb["quality"])
    assert deb["flagged"] == DEBATE_FLAGS
    qa = rows["qa_without_article"]
    assert qa["accuracy"] == 0.5 and qa["quality"]["n_agent_turns"] == 0 and qa["flagged"] == ["answers 1 in 8/8"]
    cons = rows["consultancy"]
    assert cons["flagged"] == [] and cons["quality"]["forced_rate"] == 0.0 and cons["quality"]["answer1_share"] == 0.5
    old = _summary(old_run)["debate"]
    _check_debate(old["quality"], with_budget=False)
    assert old["flagged"] == DEBATE_FLAGS[:1]  # cut unknown: no cut flag


def test_summary_table_prints_quality(new_run, old_run, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich reads the width; no column is shortened
    from oversight_bench.scheduler import Stats
    from oversight_bench.pipeline import Outcome
    from oversight_bench.end_of_run import print_summary

    for run, forced in ((new_run, "12.5"), (old_run, "–")):
        print_summary(Outcome(Stats(), list(_summary(run).values()), [], str(run)))
        out = capsys.readouterr().out
        deb = next(ln for ln in out.splitlines() if ln.lstrip("│ ").startswith("debate"))
        cells = [c.strip() for c in deb.strip("│ \n").split("│")]
        # protocol task questions accuracy%[CI] invalid/answers acc%,invalid=wrong no-arg forced cut
        # u-quote-args answer1 flag (no debiased judge: no plain column)
        assert cells == ["debate", "mmlu", "4", "87.5 [63.0, 100.0]", "1/8", "75.0", "6.3", forced,
                         "18.8" if forced != "–" else "–", "0.0", "71.4", "⚑"], out
        qa = next(ln for ln in out.splitlines() if ln.lstrip("│ ").startswith("qa_without_article"))
        assert [c.strip() for c in qa.strip("│ \n").split("│")][6:] == ["", "", "", "", "100.0", "⚑"]
        assert "⚑ qa_without_article · mmlu: answers 1 in 8/8" in out
        assert "⚑ debate · mmlu: argument-less agent turns 1/16" in out


# -- report --------------------------------------------------------------------------------------------

def test_report_rows_json_and_markdown(new_run, old_run, tmp_path):
    from oversight_bench.publish.report import build_report

    rep = build_report([new_run], tmp_path / "rep", n_resamples=200, figures=False)
    rows = {r["protocol"]: r for r in rep["groups"] if r["level"] == "task"}
    deb = rows["debate"]
    _check_debate(deb)
    assert deb["accuracy"] == 0.875 and deb["flagged"] == DEBATE_FLAGS
    assert rows["qa_without_article"]["flagged"] == ["answers 1 in 8/8"]
    on_disk = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert [g for g in on_disk["groups"] if g["level"] == "task" and g["protocol"] == "debate"][0]["cut_rate"] == 3 / 16
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "acc % (invalid = wrong)" in md and "quality flags" in md
    line = next(ln for ln in md.splitlines() if ln.startswith("| sim:j | sim:a | debate | mmlu"))
    assert "| 87.5 |" in line and "| 12.5 | 75.0 | 6.3 | 12.5 | 18.8 | 0.0 | 11 | 71.4 | – |" in line  # u-quote, plain
    assert "argument-less agent turns 1/16; cut 3/16 agent turns (> 10%)" in line
    csv = (tmp_path / "rep" / "groups.csv").read_text()
    assert "flagged" in csv.splitlines()[0] and "answers 1 in 8/8" in csv
    old = build_report([old_run], None, n_resamples=200, figures=False)
    deb = next(r for r in old["groups"] if r["level"] == "task" and r["protocol"] == "debate")
    _check_debate(deb, with_budget=False)


# -- judge --suite --------------------------------------------------------------------------------------

def test_suite_output_has_quality(new_run, tmp_path, monkeypatch):
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import compare, format_result

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    stored = read_run(new_run)
    ds = [d for d in stored.decisions if d.protocol == "debate"]
    row = compare(ds, ds, n_resamples=100, turns=stored.argument_turns())
    _check_debate(row["judge"]["quality"])
    assert row["judge"]["invalid"] == 1 and row["judge"]["quality"]["flagged"] == DEBATE_FLAGS
    row["subset"] = "all"
    lines = format_result({"suite": {"name": "s", "source": "x"}, "skipped_long": [], "rows": [row]})
    text = "\n".join(lines)
    assert "invalid 1/8 (12.5%) · acc per question with invalid as wrong 75.0" in text
    assert "answer 1 in 71.4% of valid answers" in text
    assert "⚑ argument-less agent turns 1/16; cut 3/16 agent turns (> 10%)" in text
    assert "transcripts: 16 agent turns · no-arg 6.3% · forced 12.5% · cut 18.8% · unverified-quote args 0.0% · 11 words" in text


def test_judge_suite_cli_writes_quality(new_run, tmp_path, monkeypatch):
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "judged"
    res = cli("judge", "--suite", str(new_run), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    result = json.loads((out / "suite.json").read_text())
    row = result["rows"][0]
    # the suite's own judge (the reference) on the rooms re-judged; the transcripts are the same for both
    ref = row["reference"]["quality"]
    assert ref["n_agent_turns"] == row["judge"]["quality"]["n_agent_turns"] > 0
    assert "transcripts:" in res.output and "acc per question with invalid as wrong" in res.output


# -- leaderboard ----------------------------------------------------------------------------------------

@pytest.fixture
def board(new_run, tmp_path):
    from oversight_bench.publish.leaderboard import build_leaderboard

    res = build_leaderboard([new_run], tmp_path / "lb", n_resamples=200, figures=False, min_n=1)
    return tmp_path / "lb", res


def test_leaderboard_cells_carry_quality_and_flags(board):
    out, res = board
    data = json.loads((out / "results.json").read_text())
    cells = data["judges"][0]["cells"]
    deb = cells["debate · closed"]
    _check_debate(deb["quality"])
    assert deb["accuracy"] == 0.875 and deb["flagged"] == DEBATE_FLAGS and "accuracy_valid" not in deb["quality"]
    qa = cells["qa_without_article · closed"]
    assert (qa["accuracy"], qa["ci_low"], qa["ci_high"]) == (0.5, 0.5, 0.5) and qa["flagged"] == ["answers 1 in 8/8"]
    assert cells["consultancy · closed"]["flagged"] == []
    assert data["include_flagged"] is False and "argument-less" in data["quality_bar"]


def test_flagged_cells_are_out_of_the_headlines(board, new_run, tmp_path):
    from oversight_bench.publish.leaderboard import build_leaderboard

    out, res = board
    h_cons, h_qa = res["judges"][0]["headlines"]
    assert h_cons["diff"] is None and h_cons["excluded"] == ["debate · closed"]
    assert h_qa["diff"] is None and h_qa["excluded"] == ["debate · closed", "qa_without_article · closed"]
    md = (out / "leaderboard.md").read_text()
    assert "– (without ⚑ debate · closed)" in md
    res = build_leaderboard([new_run], tmp_path / "lb2", n_resamples=200, figures=False, min_n=1, include_flagged=True)
    h_cons, h_qa = res["judges"][0]["headlines"]
    assert h_cons["diff"] == pytest.approx(0.875 - 1.0) and h_cons["n"] == 4 and h_cons["excluded"] == []
    assert h_cons["flagged_included"] == ["debate · closed"]
    assert h_qa["diff"] == pytest.approx(0.875 - 0.5)


def test_include_flagged_cli_flag(new_run, tmp_path):
    res = cli("leaderboard", str(new_run), "--output", str(tmp_path / "lb"), "--include-flagged")
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "lb" / "results.json").read_text())
    assert data["include_flagged"] is True


def test_leaderboard_markdown_and_page_show_quality(board, new_run):
    out, res = board
    md = (out / "leaderboard.md").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| sim:j |"))
    assert "50.0 [50.0, 50.0] n=4, invalid 0.0% ⚑ answers 1 in 8/8" in row  # why its CI has zero width
    assert "87.5 [" in row and ", invalid 12.5% ⚑ argument-less agent turns 1/16; cut 3/16 agent turns (> 10%)" in row
    assert "Accuracy % over valid answers" in md and "left out of the headline differences" in md
    q = next(ln for ln in md.splitlines() if ln.startswith("| sim:j | debate · closed |"))
    assert q == ("| sim:j | debate · closed | 1/8 | 75.0% | 16 | 6.3% | 12.5% | 18.8% | 11 | 71.4% | "
                 "argument-less agent turns 1/16; cut 3/16 agent turns (> 10%) |")
    page = (out / "index.html").read_text()
    assert "accuracy % over the judge&#x27;s valid answers" in page or "accuracy % over the judge's valid answers" in page
    assert "flagged-cell" in page and "answers 1 in 8/8" in page
    rooms = "".join(_room_pages(out, new_run, res["judges"][0]["cells"]["debate · closed"]))
    assert '<span class="budget">[cut at 512 tokens]</span>' in rooms
    assert "[forced: thinking budget spent after 1024 tokens" in rooms


def _room_pages(out, run, cell):
    """The viewer's pages of the rooms a leaderboard cell links (exported as reproduce.sh does)."""
    import re

    from human_judging import viewer

    cells, back = viewer.read_cells_file(out / "rooms-cells.json")
    viewer.export_static([run], out / "rooms", cells=cells, back=back)
    ids = re.findall(r'data-room="([0-9a-f]+)"', (out / cell["rooms"]).read_text())
    assert ids
    return [(out / "rooms" / "rooms" / f"{i}.html").read_text() for i in ids]


def test_old_store_shows_unknown_not_zero(old_run, tmp_path):
    from oversight_bench.publish.leaderboard import build_leaderboard

    res = build_leaderboard([old_run], tmp_path / "lb", n_resamples=200, figures=False, min_n=1)
    deb = res["judges"][0]["cells"]["debate · closed"]
    assert deb["quality"]["forced_rate"] is None and deb["quality"]["cut_rate"] is None
    assert deb["flagged"] == DEBATE_FLAGS[:1]
    q = next(ln for ln in (tmp_path / "lb" / "leaderboard.md").read_text().splitlines()
             if ln.startswith("| sim:j | debate · closed |"))
    assert "| 16 | 6.3% | – | – | 11 |" in q
    rooms = "".join(_room_pages(tmp_path / "lb", old_run, deb))
    assert "Round 1" in rooms and "cut at" not in rooms and "forced:" not in rooms  # unknown: never marked


def test_every_printed_percentage_rounds_by_the_one_rule():
    """0.5625 is 56.25%: half up (`pct`) it prints 56.3 in every column of a row; the accuracy column and
    the suites' comparison printed `f"{100 * v:.1f}"` (ties to even: 56.2) beside it."""
    from oversight_bench.end_of_run import accuracy_cell
    from oversight_bench.suites import _pct, _signed_pct

    assert accuracy_cell(0.5625, 0.0625, 0.9995) == "56.3 [6.3, 100.0]"
    assert accuracy_cell(0.5625, None, None) == "56.3 [–]"
    assert (_pct(0.5625), _pct(None), _signed_pct(-0.0625), _signed_pct(0.5625)) == (" 56.3", "  –  ", "-6.3", "+56.3")
