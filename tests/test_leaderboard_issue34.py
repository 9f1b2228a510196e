"""Issue 34 in the leaderboard build: no Elo carried from an earlier build; a cell judged by the
agent's own model labelled "judge = agent (no weak–strong gap)" everywhere and kept out of the
headlines (carried cells too, from their provenance); a suite re-judged as a derived protocol keeps
its suite's column; paired tests per column, the derived protocols' included; the stance check in
the build. Synthetic runs (tests/fake_runs.py) and a scripted checker only."""

from __future__ import annotations

import json
import re
import shutil

from fake_runs import make_crossplay, make_run
from helpers import cli
from model_adapters.scripted import prompt_script, register_script
from oversight_bench.analysis.leaderboard import figure_bars
from oversight_bench.publish.leaderboard import build_leaderboard
from oversight_bench.rundir.store import Store


def _set_config(directory, **extra):
    st = Store.open(directory, write=True)
    try:
        st.write_config({**(st.read_config() or {}), **extra})
    finally:
        st.close()


def _row(res, judge):
    return next(j for j in res["judges"] if j["judge"] == judge)


def test_elo_is_never_carried(tmp_path):
    """An earlier build's Elo table is not carried: the board rates only the cross-play runs it is given
    (the carried table had no rooms, an old cap and a debater as judge), and the build says so."""
    xp = make_crossplay(tmp_path / "xp", {"sim:agent": 50.0, "other": -50.0}, n_games=12, judge="sim:xp-judge")
    run = make_run(tmp_path / "run", n_questions=3, judge="sim:judge-a")
    first = build_leaderboard([xp, run], tmp_path / "lb", n_resamples=100, figures=False)
    assert first["elo"]["n_games"] == 12
    shutil.copy(tmp_path / "lb" / "results.json", tmp_path / "prev.json")
    second = build_leaderboard([run], tmp_path / "lb", n_resamples=100, figures=False, carry=tmp_path / "prev.json",
                               force=True)
    assert second.get("elo") is None
    assert any("Elo table (12 games" in w and "is not carried" in w for w in second["warnings"])
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "Carried from the build of" not in md and "Elo is never carried" in md and "| sim:agent |" not in md
    page = (tmp_path / "lb" / "index.html").read_text()
    assert 'id="elo"' not in page and "Elo is never carried" in page
    # given the cross-play run again, the table is this build's own
    third = build_leaderboard([xp, run], tmp_path / "lb", n_resamples=100, figures=False, carry=tmp_path / "prev.json",
                              force=True)
    assert third["elo"]["n_games"] == 12 and "carried" not in third["elo"]


def test_self_judged_cells_are_labelled_and_out_of_the_headlines(tmp_path):
    """A judge that is the agent's model (options and the debiased suffix aside): its argued cells say so
    in results.json, the page, the Markdown and the figure's data, and no headline counts them; its QA
    cells (no agent turns) and another judge's cells are not labelled."""
    own = make_run(tmp_path / "own", n_questions=4, judge="sim:agent,n_ctx=8192", agent="sim:agent")
    other = make_run(tmp_path / "other", n_questions=4, judge="sim:judge-b", agent="sim:agent", seed=1)
    res = build_leaderboard([own, other], tmp_path / "lb", n_resamples=100, show_small=True)
    row = _row(res, "sim:agent,n_ctx=8192")
    labelled = sorted(k for k, c in row["cells"].items() if c.get("self_judged"))
    assert labelled and all(row["cells"][k]["self_judged"] == SELF_JUDGED for k in labelled)
    assert {row["cells"][k]["protocol"] for k in labelled} == {"debate", "consultancy", "open_debate", "open_consultancy"}
    assert not any(c.get("self_judged") for k, c in row["cells"].items() if k.startswith("qa_"))
    assert not any(c.get("self_judged") for c in _row(res, "sim:judge-b")["cells"].values())
    for h in row["headlines"]:  # every debate and consultancy cell is the agent's: nothing left to compare
        assert h["diff"] is None and h["self_judged"] and set(h["self_judged"]) <= set(labelled)
    assert all(h["diff"] is not None and not h["self_judged"] for h in _row(res, "sim:judge-b")["headlines"])
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    line = next(ln for ln in md.splitlines() if ln.startswith("| sim:agent,n_ctx=8192 |"))
    assert "[judge = agent (no weak–strong gap)]" in line and "without judge = agent" in line
    page = (tmp_path / "lb" / "index.html").read_text()
    assert page.count('<div class="selfjudged">judge = agent (no weak–strong gap)</div>') == len(labelled)
    bars = [b for b in figure_bars(res["judges"], res["columns"]) if b["judge"] == "sim:agent,n_ctx=8192"]
    assert {b["protocol"] for b in bars if b["self_judged"] == SELF_JUDGED} == {"debate", "consultancy", "open_debate",
                                                                               "open_consultancy"}
    assert not any(b["self_judged"] for b in bars if b["protocol"].startswith("qa_"))

    # carried: the label is decided again from the cell's agents, else from its row's provenance
    prev = json.loads((tmp_path / "lb" / "results.json").read_text())
    for j in prev["judges"]:
        for c in j["cells"].values():
            c.pop("self_judged", None)
            if j["judge"] == "sim:agent,n_ctx=8192" and c["protocol"] == "consultancy":
                c.pop("agents")  # an older build's cell: its row's provenance names the agent
    (tmp_path / "prev.json").write_text(json.dumps(prev))
    third = make_run(tmp_path / "third", n_questions=2, judge="sim:judge-c", seed=2)
    res2 = build_leaderboard([third], tmp_path / "lb2", n_resamples=100, figures=False, carry=tmp_path / "prev.json")
    carried = _row(res2, "sim:agent,n_ctx=8192")
    assert sorted(k for k, c in carried["cells"].items() if c.get("self_judged")) == labelled
    assert all(c.get("carried") for c in carried["cells"].values())
    assert all(h["diff"] is None for h in carried["headlines"])


def test_a_derived_rejudging_of_a_suite_keeps_the_suite_column_and_is_paired(tmp_path):
    """`judge --from SUITE_RUN --as NAME` holds the suite's rooms: its cells are in the suite's column
    (the import is its source's source), and the build's paired tests per column include each derived
    protocol against its source (debate − verified_evidence) beside the paper's pairs."""
    imported = {"import": {"suite": "khan-2024", "kind": "llm-debate"}}
    run = make_run(tmp_path / "suite-run", n_questions=4, judge="sim:judge-a",
                   accuracy={"verified_evidence": 0.7})
    _set_config(run, kind="judge", source_config={"kind": "judge", "source_config": imported})
    res = build_leaderboard([run], tmp_path / "lb", n_resamples=100, figures=False, show_small=True)
    keys = {c["key"] for c in res["columns"]}
    assert "verified_evidence · suite:khan-2024" in keys and "debate · suite:khan-2024" in keys
    assert not any(k.endswith("extractive") or k.endswith("closed") for k in keys)
    paired = {(t["scope"], t["a"], t["b"]): t for t in _row(res, "sim:judge-a")["paired"]}
    t = paired[("suite:khan-2024", "debate", "verified_evidence")]
    assert t["n"] == 12 and 0 <= t["p_value"] <= 1 and abs(t["diff"] - (t["accuracy_a"] - t["accuracy_b"])) < 1e-9
    assert ("suite:khan-2024", "debate", "qa_without_article") in paired
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "## Paired tests per column" in md and "| sim:judge-a | suite:khan-2024 | debate − verified_evidence | 12 |" in md
    assert '<table id="paired">' in (tmp_path / "lb" / "index.html").read_text()


ASKED: list[str] = []
SELF_JUDGED = "judge = agent (no weak–strong gap)"


def _checker(prompt: str, n: int) -> list[str]:
    """Names the side an argument says it defends ("I defend answer N"); 1 for any other argument."""
    ASKED.append(prompt)
    m = re.search(r"I defend answer (\d)", prompt.split("debate about this question:", 1)[1])
    return [m.group(1) if m else "1"] * n


register_script("lb-stance-checker", prompt_script(_checker))


def test_stance_check_in_the_build(tmp_path):
    """`leaderboard --stance-check SPEC`: every argued cell has its stance figures beside the checker's
    accuracy on the calibration run; QA cells have none; the verdicts are cached, so a rebuild asks nothing."""
    run = make_run(tmp_path / "run", n_questions=2, judge="sim:judge-a")
    cal = make_run(tmp_path / "cal", n_questions=2, judge="sim:judge-z", seed=3)
    ASKED.clear()
    res = cli("leaderboard", str(run), "--output", str(tmp_path / "lb"), "--show-small", "--stance-check",
              "scripted:lb-stance-checker", "--stance-calibration", str(cal))
    assert res.exit_code == 0, res.output
    assert "stance check by scripted:lb-stance-checker" in res.output
    data = json.loads((tmp_path / "lb" / "results.json").read_text())
    st = data["stance_check"]
    assert st["checker_accuracy"] == 1.0 and st["n_calibration"] == 24 and st["calls"] == len(set(ASKED)) > 0
    cells = _row(data, "sim:judge-a")["cells"]
    debate = cells["debate · extractive"]
    # the fake debaters say which answer they defend: the checker agrees with every one
    assert debate["quality"]["n_stance"] == debate["quality"]["n_agent_turns"] > 0
    assert debate["quality"]["stance_off_rate"] == 0.0
    assert debate["stance"].startswith("other side or conceding 0/") and "checker accuracy 100.0% of 24 on" in debate["stance"]
    assert "stance" not in cells["qa_without_article · extractive"]
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "## Stance check" in md and "checker accuracy 100.0% of 24" in md
    assert "checker accuracy 100.0% of 24" in (tmp_path / "lb" / "index.html").read_text()
    ASKED.clear()
    res = cli("leaderboard", str(run), "--output", str(tmp_path / "lb"), "--force", "--show-small", "--stance-check",
              "scripted:lb-stance-checker", "--stance-calibration", str(cal))
    assert res.exit_code == 0, res.output
    assert ASKED == [] and "(0 checker calls made)" in res.output


def test_a_rejudging_of_a_suites_rejudging_declares_the_source_not_our_defaults():
    """`judge --from SUITE_RUN --as verified_evidence`: the transcripts are still the import's, however
    many re-judgings back, so the run declares the source's settings as its import found them and
    none of our agent defaults (issue 34.5)."""
    from oversight_bench.deviations import deviations
    from oversight_bench.protocol_options import all_options_model

    imported = {"kind": "import", "import": {"suite": "khan-2024", "differences": ["source transcripts: SOURCE-SETTINGS"]}}
    config = {"kind": "judge", "judge": "sim:j", "protocols": ["verified_evidence"],
              "options": all_options_model()().model_dump(mode="json"),
              "source_config": {"kind": "judge", "protocols": ["debate"], "source_config": imported}}
    lines = deviations(config)
    assert "source transcripts: SOURCE-SETTINGS" in lines
    assert not any(line.startswith("agent ") for line in lines), lines


def test_reproduce_has_the_khan_step_and_the_board_collects_it():
    """`reproduce.sh khan`: the khan-2024 suite judged position-debiased in probs mode, then the same
    run judged as verified_evidence, debate_unverified and qa_without_article, in that order, into
    khan-* run folders that the board step collects (the board is reproducible from the script)."""
    from helpers import REPO

    script = (REPO / "leaderboards" / "reproduce.sh").read_text()
    assert "qa|debias|nyu|agent|rejudge|elo|khan|board)" in script
    assert "STEPS=(qa debias nyu agent rejudge elo khan board)" in script
    khan = script[script.index("khan() {"):]
    khan = khan[:khan.index("\n}\n")]
    assert 'judge --suite khan-2024 --judge "$(judge "$j"),debias=true"' in khan and '"${JUDGE_MODE[@]}"' in khan
    assert "for p in verified_evidence debate_unverified qa_without_article; do" in khan
    assert 'judge --from "$RUNS/khan-$j" --as "$p" --judge "$(judge "$j"),debias=true"' in khan
    board = script[script.index("board() {"):]
    assert '"$RUNS"/khan-*' in board[:board.index("\n}\n")]
