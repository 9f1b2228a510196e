"""Importers on the real peer files (skipped where the shared datasets are absent)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from transcript_suites.importers import detokenize, import_llm_debate, import_nyu_debate, verify_quotes
from oversight_bench.errors import BenchError
from oversight_bench.protocol import Turn
from oversight_bench.rundir.store import Store
from helpers import stored_records

DATA = Path(os.environ.get("OVERSIGHT_BENCH_DATA") or Path(__file__).resolve().parents[2] / "shared" / "datasets")
NYU = DATA / "quality" / "michael2023_debates"
KHAN = DATA / "quality" / "khan2024_TH_first40" / "data0.csv"

needs_nyu = pytest.mark.skipif(not (NYU / "debates_official.tar.xz").exists(), reason="NYU debate data not present")
needs_khan = pytest.mark.skipif(not KHAN.exists(), reason="Khan et al. llm_debate CSV not present")


@pytest.fixture(scope="module")
def nyu_all(tmp_path_factory):
    out = tmp_path_factory.mktemp("nyu") / "run"
    return out, import_nyu_debate(NYU, out)


@pytest.fixture(scope="module")
def nyu_paper(tmp_path_factory):
    out = tmp_path_factory.mktemp("nyup") / "run"
    return out, import_nyu_debate(NYU, out, paper_only=True)


@pytest.fixture(scope="module")
def nyu_paper_both(tmp_path_factory):
    """The paper's rooms in both orders (two tests read it; neither writes to it)."""
    out = tmp_path_factory.mktemp("nyub") / "nyu"
    return out, import_nyu_debate(NYU, out, paper_only=True, both_orders=True)


@needs_nyu
def test_nyu_counts(nyu_all):
    out, c = nyu_all
    # 631 rooms: 561 complete, of which 44 were judged offline only; 70 unfinished or not started
    assert c["rooms"] == 517
    assert c["skipped"] == {"no live judge": 44, "no final verdict (unfinished)": 70}
    assert c["by_protocol"] == {"debate": 313, "consultancy": 204}
    assert c["by_protocol_agent"] == {"debate/human": 222, "debate/gpt-4": 91, "consultancy/human": 110, "consultancy/gpt-4": 94}
    assert c["human_judges"] == 19 and c["human_debaters"] == 19
    store = Store.open(out)
    try:
        decisions = list(stored_records(store, "decision"))
        assert len(decisions) == 517
        assert {d["judge"] for d in decisions} == {"human:nyu-2023"}
        assert len({d["extra"]["judge_id"] for d in decisions}) == 19
        assert len(store.questions()) == c["questions"] == 294
    finally:
        store.close()


@needs_nyu
def test_nyu_paper_only_matches_published_accuracy(nyu_paper):
    _, c = nyu_paper
    assert c["rooms"] == 413
    assert c["by_protocol"] == {"debate": 241, "consultancy": 172}
    # Michael et al. 2023: human debate 84%, human consultancy 74% (judge accuracy per room)
    assert c["judge_accuracy_by_room"]["debate/human"] == pytest.approx(0.84, abs=0.01)
    assert c["judge_accuracy_by_room"]["consultancy/human"] == pytest.approx(0.74, abs=0.015)


@needs_nyu
def test_nyu_rooms_are_rejudgeable_transcripts(nyu_paper):
    out, _ = nyu_paper
    store = Store.open(out)
    try:
        qs = store.questions()
        turns = list(stored_records(store, "turn"))
        decisions = list(stored_records(store, "decision"))
    finally:
        store.close()
    by_job = Counter(t["job_key"] for t in turns)
    assert all(by_job[d["job_key"]] > 0 for d in decisions)
    parsed = [Turn.from_dict(t) for t in turns]
    assert {t.role for t in parsed} == {"debater", "consultant", "judge"}
    debater_turns = [t for t in parsed if t.role in ("debater", "consultant")]
    assert all(t.defends in (1, 2) for t in debater_turns)
    assert sum("<v_passage>" in t.shown for t in debater_turns) > 0.8 * len(debater_turns)
    # the final verdict is not in the transcript a re-judge sees
    assert all(not (t.extra or {}).get("belief") or t.role == "judge" for t in parsed)
    for d in decisions[:50]:
        q = qs[(d["task"], d["question_id"])]
        shown = q.answers(d["answer_order"])
        assert list(shown) == d["answers"]
        assert q.article and len(q.article) > 5000


@needs_nyu
def test_nyu_import_refuses_existing_run(nyu_all):
    out, _ = nyu_all
    with pytest.raises(BenchError, match="already holds a run"):
        import_nyu_debate(NYU, out)


@needs_khan
def test_llm_debate_import(tmp_path):
    c = import_llm_debate(KHAN, tmp_path / "khan")
    assert c["rooms"] == 40 and c["questions"] == 40
    assert c["by_protocol"] == {"debate": 40} and c["rounds"] == {3: 40}
    assert c["judged"] == 0
    store = Store.open(tmp_path / "khan")
    try:
        turns = list(stored_records(store, "turn"))
        decisions = list(stored_records(store, "decision"))
    finally:
        store.close()
    assert len(turns) == 240  # two debaters x three rounds x 40
    assert Counter(t["speaker"] for t in turns) == {"Debater A": 120, "Debater B": 120}
    assert all(d["extra"]["unjudged"] and d["judge"] == "unjudged" for d in decisions)
    n_v = sum(t["shown"].count("<v_passage>") for t in turns)
    n_u = sum(t["shown"].count("<u_passage>") for t in turns)
    assert n_v > 3 * n_u > 0
    assert not any("<thinking>" in t["shown"] for t in turns)


@needs_khan
def test_llm_debate_import_in_both_orders(tmp_path):
    """The published file shows every correct answer first; `both_orders` adds each debate's mirror."""
    c = import_llm_debate(KHAN, tmp_path / "khan", both_orders=True, suite="khan-2024")
    assert c["rooms"] == 80 and c["questions"] == 40 and c["mirrored"] == 40
    assert c["answer_order"] == {"correct_first": 40, "correct_second": 40}
    store = Store.open(tmp_path / "khan")
    try:
        turns = list(stored_records(store, "turn"))
        config = store.read_config()
    finally:
        store.close()
    assert len(turns) == 480 and config["import"]["suite"] == "khan-2024" and config["import"]["both_orders"]
    mirrored = [t for t in turns if t["answer_order"] == "correct_second"]
    # the names are swapped with the answers: the correct debater (answer 2 now) is Debater B
    assert Counter((t["speaker"], t["defends"]) for t in mirrored) == {("Debater B", 2): 120, ("Debater A", 1): 120}


@needs_nyu
def test_nyu_import_in_both_orders_mirrors_the_debates_only(nyu_paper_both):
    """`both_orders`: each debate again, unjudged, answers and names swapped (the judge's turns, its
    beliefs included); consultancies are not mirrored; the counts are of the source's rooms."""
    out, c = nyu_paper_both
    assert c["rooms"] == 413 and c["mirrored"] == 241 and c["by_protocol"] == {"debate": 241, "consultancy": 172}
    store = Store.open(out)
    try:
        decisions = list(stored_records(store, "decision"))
        turns = list(stored_records(store, "turn"))
    finally:
        store.close()
    assert len(decisions) == 654
    mirrors = {d["job_key"]: d for d in decisions if d["extra"].get("mirrored")}
    assert len(mirrors) == 241 and all(d["judge"] == "unjudged" and d["protocol"] == "debate" for d in mirrors.values())
    by_room = {(d["extra"]["room"].split(" (")[0], d["extra"].get("mirrored", False)): d for d in decisions if d["protocol"] == "debate"}
    for (room, m), d in by_room.items():
        if m:
            orig = by_room[(room, False)]
            assert d["correct_index"] == 3 - orig["correct_index"] and d["answers"] == orig["answers"][::-1]
            assert set(d["extra"]["debaters"]) == set(orig["extra"]["debaters"])
    mt = [t for t in turns if t["job_key"] in mirrors]
    assert {t["speaker"] for t in mt if t["role"] == "debater"} == {"Debater A", "Debater B"}
    assert all((t["speaker"] == "Debater A") == (t["defends"] == 1) for t in mt if t["role"] == "debater")


@needs_khan
@needs_nyu
def test_an_import_records_the_sources_settings_not_our_defaults(tmp_path, nyu_paper_both):
    """An imported run's config says how the source made its transcripts (as its rows show or its
    authors report, else "unknown"), never our option defaults (before: rounds 3, best-of-4 and both
    orders for every import, the NYU rooms included), and declares what differs from the paper."""
    from transcript_suites.importers import KHAN_2024_REPORTED

    import_llm_debate(KHAN, tmp_path / "khan", both_orders=True, suite="khan-2024", reported=KHAN_2024_REPORTED)
    configs = {}
    for name, folder in (("khan", tmp_path / "khan"), ("nyu", nyu_paper_both[0])):
        store = Store.open(folder)
        try:
            configs[name] = store.read_config()
        finally:
            store.close()
    khan, nyu = configs["khan"], configs["nyu"]
    assert khan["options"] == {} and nyu["options"] == {}
    ks = khan["import"]["source_settings"]
    assert ks["rounds"] == "3" and ks["turn_style"] == "simultaneous" and ks["best_of_n"] == 4
    assert ks["word_limit"] == "unknown" and ks["judge"] == "none recorded"
    assert ks["answer_order"].startswith("correct answer first in 40 of 40 debates as published")
    assert khan["deviations"] == khan["import"]["differences"]
    assert any("gpt-4o-2024-08-06" in d for d in khan["deviations"]) and not any("rounds" in d for d in khan["deviations"])
    ns = nyu["import"]["source_settings"]
    assert ns["rounds"].startswith("as each live judge chose: ") and ns["best_of_n"] == "unknown"
    assert "sequential" in ns["turn_style"] and "simultaneous" in ns["turn_style"]
    assert "in 221 of 241 debates it did" in ns["judge"] and "second in 139 of 241" in ns["answer_order"]
    assert nyu["deviations"] == nyu["import"]["differences"]
    assert any("debaters are people and GPT-4" in d for d in nyu["deviations"])
    assert any("interactive debate" in d for d in nyu["deviations"])


def test_missing_paths_are_user_errors(tmp_path):
    with pytest.raises(BenchError, match="michael2023"):
        import_nyu_debate(tmp_path / "nope", tmp_path / "out")
    with pytest.raises(BenchError, match="CSV"):
        import_llm_debate(tmp_path / "nope.csv", tmp_path / "out")


def test_detokenize_and_quote_verification():
    assert detokenize(["``", "Hello", ",", "world", "''", "-LRB-", "x", "-RRB-", "is", "n't", "."]) == '"Hello, world" (x) isn\'t.'
    art = "The ship\n landed on the  red moon."
    out = verify_quotes('<quote>"landed on the red moon"</quote> and <quote>blue sun</quote>', art)
    assert out == '<v_passage>"landed on the red moon"</v_passage> and <u_passage>blue sun</u_passage>'


def test_speaker_names_are_the_cores_in_one_place():
    """The importers and the debate protocol take an imported room's speaker names from the core
    (`protocol.SOURCE_DEBATERS`, `CONSULTANT`, `JUDGE`, through the API); no code of theirs spells them
    (docstrings and comments may)."""
    import ast

    from oversight_bench.protocol import CONSULTANT, JUDGE, SOURCE_DEBATERS, source_debater

    assert (source_debater(1), source_debater(2)) == ("Debater A", "Debater B") and SOURCE_DEBATERS["Debater B"] == 2
    names = {*SOURCE_DEBATERS, CONSULTANT, JUDGE, "Debater "}
    repo = Path(__file__).resolve().parents[1]
    spelled = []
    for rel in ("transcript_suites/importers.py", "transcript_suites/mirror.py", "transcript_suites/quotes.py",
                "transcript_suites/source_settings.py", "protocol_plugins/debate.py"):
        tree = ast.parse((repo / rel).read_text(encoding="utf-8"))
        docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
        spelled += [f"{rel}:{n.lineno} {n.value!r}" for n in ast.walk(tree)
                    if isinstance(n, ast.Constant) and id(n) not in docstrings and n.value in names]
        spelled += [f"{rel}:{n.lineno} f-string" for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
                    and any(isinstance(v, ast.Constant) and v.value in names for v in n.values)]
    assert spelled == []
