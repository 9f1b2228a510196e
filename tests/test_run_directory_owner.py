"""One owner for the run directory: while each command that writes a run directory runs (run, judge
--from, judge --suite, elo, both importers, salvage, the human study), every store opened for
writing and every writable connection to a results.sqlite is asked for by a module of
`oversight_bench.rundir`. Watched while the commands run, not read off the source."""

from __future__ import annotations

import asyncio
import csv
import json
import sqlite3
import sys

import pytest

from helpers import DATA, FAKE, cli, stored_records
from oversight_bench.rundir.names import DB_NAME
from oversight_bench.rundir.store import Store

OWNER = "oversight_bench.rundir"
NYU = DATA / "quality" / "michael2023_debates"


@pytest.fixture
def writers(monkeypatch):
    """The module behind each write-open of a store (`Store.open(write=True)`) and each connection to a
    results.sqlite not opened read-only, in the order they happened."""
    seen: list[str] = []
    real_open = Store.open.__func__
    real_connect = sqlite3.connect

    def store_open(cls, directory, *, write=False):
        if write:
            seen.append(sys._getframe(1).f_globals.get("__name__", "?"))
        return real_open(cls, directory, write=write)

    def connect(database, *args, **kwargs):
        name = str(database)
        if name.split("?")[0].endswith(DB_NAME) and "mode=ro" not in name:
            seen.append(sys._getframe(1).f_globals.get("__name__", "?"))
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(Store, "open", classmethod(store_open))
    monkeypatch.setattr(sqlite3, "connect", connect)
    return seen


def _only_rundir(seen: list[str], what: str) -> None:
    assert seen, f"{what} opened no store for writing: the check saw nothing"
    strangers = sorted({m for m in seen if not (m == OWNER or m.startswith(OWNER + "."))})
    assert not strangers, f"{what}: a store opened for writing outside {OWNER}: {strangers}"
    seen.clear()


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A small stored run (QA, debate and one-round consultancy: all re-judgeable)."""
    out = tmp_path_factory.mktemp("owner") / "src"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2", "--rounds", "1",
              "--protocols", "qa_without_article,consultancy,debate", "--best-of-n", "1", "--answer-order", "random",
              "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    return out


def test_run_judge_and_suite_write_through_rundir(writers, source, tmp_path):
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1", "--rounds", "1",
              "--protocols", "debate", "--best-of-n", "1", "--output", str(tmp_path / "run"), "--quiet")
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "run")
    res = cli("judge", "--from", str(source), "--judge", FAKE, "--output", str(tmp_path / "judged"), "--quiet")
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "judge --from")
    res = cli("judge", "--suite", str(source), "--judge", FAKE, "--output", str(tmp_path / "suite"), "--quiet")
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "judge --suite")
    res = cli("salvage", str(source), "--output", str(tmp_path / "salvaged"))
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "salvage")


def test_elo_writes_through_rundir(writers, tmp_path):
    res = cli("elo", "--debaters", f"{FAKE},{FAKE},delay=0", "--judge", FAKE, "--tasks", "prontoqa", "--pairings", "2",
              "--output", str(tmp_path / "elo"), "--bootstrap", "5")
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "elo")


def _khan_csv(path):
    transcript = {"question": "What lands?", "story": "The ship landed on the red moon at dawn.",
                  "answers": {"correct": "the ship", "incorrect": "the moon"},
                  "names": {"correct": "Debater A", "incorrect": "Debater B"}, "rollout_type": "quality_sim",
                  "rounds": [{"correct": "<argument><quote>The ship landed</quote></argument>",
                              "incorrect": "<argument>The moon moves.</argument>"}]}
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["id", "question", "question_set_id", "story", "transcript", "answer"])
        w.writeheader()
        for i in range(2):
            w.writerow({"id": i, "question": f"What lands? ({i})", "question_set_id": f"s{i}",
                        "story": transcript["story"], "transcript": json.dumps(transcript), "answer": ""})
    return path


def test_importers_write_through_rundir_and_their_rooms_rejudge_under_the_same_keys(writers, tmp_path):
    res = cli("import", "llm-debate", str(_khan_csv(tmp_path / "k.csv")), "--output", str(tmp_path / "khan"))
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "import llm-debate")
    res = cli("judge", "--from", str(tmp_path / "khan"), "--judge", FAKE, "--output", str(tmp_path / "kj"), "--quiet")
    assert res.exit_code == 0, res.output
    writers.clear()
    keys = {}
    for name in ("khan", "kj"):
        st = Store.open(tmp_path / name)
        try:
            keys[name] = {d["job_key"] for d in stored_records(st, "decision")}
        finally:
            st.close()
    assert len(keys["khan"]) == 2 and keys["kj"] == keys["khan"]  # the room survives a re-judge as the same job


@pytest.mark.skipif(not (NYU / "debates_official.tar.xz").exists(), reason="NYU debate data not present")
def test_nyu_import_writes_through_rundir(writers, tmp_path):
    res = cli("import", "nyu-debate", str(NYU), "--output", str(tmp_path / "nyu"), "--paper-only")
    assert res.exit_code == 0, res.output
    _only_rundir(writers, "import nyu-debate")


def test_human_study_writes_through_rundir(writers, source, tmp_path):
    pytest.importorskip("pydantic")
    from human_judging.study import Study

    study = Study(str(source), str(tmp_path / "human"), agent=FAKE, live=["consultancy"], option_overrides={"rounds": 2})
    try:
        _only_rundir(writers, "serve (the study's start)")
        study.items = [it for it in study.items if it.live]  # live consultancies: calls and records written
        asked = decided = 0
        while (row := study.next_assignment("ann")) is not None:
            view = asyncio.run(study.view("ann", row))
            if view.needs == "question":
                asyncio.run(study.ask("ann", row, "Why?"))
                asked += 1
            else:
                asyncio.run(study.decide("ann", row, 1, 0.8, ""))
                decided += 1
    finally:
        study.close()
    assert decided == asked == 2  # rounds=2: one question from the person, then the decision
    strangers = sorted({m for m in writers if not m.startswith(OWNER)})
    assert not strangers, f"the human study opened a store for writing outside {OWNER}: {strangers}"
