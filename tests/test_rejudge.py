"""Re-judging stored transcripts (judge calls only), imported rooms, and cross-play for Elo."""

from __future__ import annotations

import sqlite3

import pytest

from helpers import DATA, cli, stored_records

FAKE = "scripted:default"


def _roles(directory) -> dict[str, int]:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return dict(con.execute("SELECT role, COUNT(*) FROM calls GROUP BY role").fetchall())
    finally:
        con.close()


def test_judge_from_makes_only_judge_calls(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "4",
              "--protocols", "qa_without_article,debate,consultancy", "--output", str(src), "--quiet")
    assert res.exit_code == 0, res.output
    res = cli("judge", "--from", str(src), "--judge", "scripted:default,logprobs=true", "--output", str(dst), "--quiet")
    assert res.exit_code == 0, res.output
    assert set(_roles(dst)) == {"judge"}
    assert "consultancy is not re-judgeable" in res.output
    from oversight_bench.rundir.store import Store
    a, b = Store.open(src), Store.open(dst)
    try:
        src_debates = [r for r in stored_records(a, "decision") if r["protocol"] == "debate"]
        new = [r for r in stored_records(b, "decision") if r["protocol"] == "debate"]
        assert {r["job_key"] for r in new} == {r["job_key"] for r in src_debates}
        assert all(r["probs"] is not None for r in new)  # the new judge has logprobs
        assert b.count("turn") == len([r for r in stored_records(a, "turn") if r["protocol"] == "debate"])
    finally:
        a.close(), b.close()


def test_one_round_consultancy_is_rejudged(tmp_path):
    """With one round the judge asks no question, so the consultant's argument alone is the transcript."""
    src, dst = tmp_path / "src", tmp_path / "dst"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3", "--rounds", "1",
              "--protocols", "consultancy", "--output", str(src), "--quiet")
    assert res.exit_code == 0, res.output
    res = cli("judge", "--from", str(src), "--judge", "scripted:default,logprobs=true", "--output", str(dst), "--quiet")
    assert res.exit_code == 0, res.output
    assert "not re-judgeable" not in res.output
    assert set(_roles(dst)) == {"judge"}
    from oversight_bench.rundir.store import Store
    a, b = Store.open(src), Store.open(dst)
    try:
        key = lambda r: (r["job_key"], r["assignment"], r["answer_order"])  # noqa: E731
        old = {key(r) for r in stored_records(a, "decision")}
        new = {key(r) for r in stored_records(b, "decision")}
        assert new == old and {k[1] for k in new} == {"correct", "incorrect"}
    finally:
        a.close(), b.close()


@pytest.mark.skipif(not (DATA / "quality" / "michael2023_debates").exists(), reason="peer debates not available")
def test_rejudge_imported_rooms_keeps_every_room(tmp_path):
    imp, dst = tmp_path / "nyu", tmp_path / "rejudged"
    res = cli("import", "nyu-debate", str(DATA / "quality" / "michael2023_debates"), "--output", str(imp), "--paper-only")
    assert res.exit_code == 0, res.output
    res = cli("judge", "--from", str(imp), "--judge", FAKE, "--output", str(dst), "--quiet")
    assert res.exit_code == 0, res.output
    from oversight_bench.rundir.store import Store
    a, b = Store.open(imp), Store.open(dst)
    try:
        debates = [r for r in stored_records(a, "decision") if r["protocol"] == "debate"]
        new = list(stored_records(b, "decision"))
        assert len(new) == len(debates) == 241
        assert {r["agent"] for r in new} == {r["agent"] for r in debates}
    finally:
        a.close(), b.close()


def test_crossplay_elo(tmp_path):
    out = tmp_path / "elo"
    res = cli("elo", "--debaters", f"{FAKE},{FAKE},best_of_n=2,scripted:default,delay=0", "--judge", FAKE,
              "--tasks", "prontoqa,truthfulqa", "--pairings", "24", "--output", str(out), "--bootstrap", "20")
    assert res.exit_code == 0, res.output
    assert (out / "elo.json").exists()
    from oversight_bench.rundir.store import Store
    st = Store.open(out / "crossplay")
    try:
        decisions = list(stored_records(st, "decision"))
        assert all(len(d["extra"]["debaters"]) == 2 for d in decisions)
        cross = [d for d in decisions if d["extra"]["debaters"][0] != d["extra"]["debaters"][1]]
        assert len(cross) == 24  # 12 per task, each a distinct (question, pair) draw
        assert len({(d["task"], d["question_id"], frozenset(d["extra"]["debaters"])) for d in cross}) == 24
        assert len(decisions) - len(cross) == 24  # self-play: 4 questions per task x 2 tasks x 3 debaters
        assert {q.task for q in st.questions().values()} == {"prontoqa", "truthfulqa"}
    finally:
        st.close()


def test_a_rounds_override_does_not_make_a_questioned_consultancy_rejudgeable(tmp_path):
    """Whether a transcript can be re-judged depends on how it was made (3 rounds: the judge asked
    questions), not on the options the new judge is given."""
    src, dst = tmp_path / "src", tmp_path / "dst"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2", "--rounds", "3",
              "--protocols", "consultancy,debate", "--best-of-n", "1", "--output", str(src), "--quiet")
    assert res.exit_code == 0, res.output
    res = cli("judge", "--from", str(src), "--judge", FAKE, "-o", "rounds=1", "--output", str(dst), "--quiet")
    assert res.exit_code == 0, res.output
    assert "consultancy is not re-judgeable" in res.output
