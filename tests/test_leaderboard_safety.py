"""`oversight-bench leaderboard` cannot destroy a board: `--output` has no default, a folder holding a
leaderboard is rebuilt only with `--force`, any other non-empty folder is refused (with or without
it), and every refusal is one line, exit 2, before anything is written or deleted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import REPO, cli

from oversight_bench.analysis.leaderboard import SCHEMA
from fake_runs import make_run


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> bytes), and every folder (-> None)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("runs") / "run", n_questions=3, judge="sim:judge-a")


@pytest.fixture(scope="module")
def built(run, tmp_path_factory):
    """A leaderboard built by the CLI, as a template each test copies."""
    out = tmp_path_factory.mktemp("built") / "board"
    res = cli("leaderboard", str(run), "--output", str(out))
    assert res.exit_code == 0, res.output
    return out


def _one_line_error(res, expected: str):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output, res.stderr
    assert lines[0] == f"error: {expected}", lines[0]


def test_output_is_required(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # wherever it runs, nothing appears there
    res = cli("leaderboard", str(run))
    _one_line_error(res, "leaderboard: no output folder; give --output DIR")
    assert list(tmp_path.iterdir()) == []


def test_non_empty_folder_that_is_not_a_board_is_refused_even_with_force(run, tmp_path):
    out = tmp_path / "mine"
    (out / "transcripts").mkdir(parents=True)
    (out / "notes.txt").write_text("keep me")
    (out / "index.html").write_text("<p>my page</p>")
    (out / "transcripts" / "old.html").write_text("an old page")
    (out / "results.json").write_text(json.dumps({"schema": "something else"}))
    before = snapshot(out)
    expected = (f"{out} is not empty and holds no leaderboard (no {SCHEMA} results.json); "
                "give --output a new or empty folder")
    for extra in ([], ["--force"]):
        res = cli("leaderboard", str(run), "--output", str(out), *extra)
        _one_line_error(res, expected)
        assert snapshot(out) == before


def test_a_file_is_refused(run, tmp_path):
    out = tmp_path / "file"
    out.write_text("not a folder")
    res = cli("leaderboard", str(run), "--output", str(out), "--force")
    _one_line_error(res, f"{out} is not a folder; give --output a new or empty folder")
    assert out.read_text() == "not a folder"


def test_empty_or_missing_folder_is_built(run, tmp_path):
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "empty", tmp_path / "new" / "board"):
        res = cli("leaderboard", str(run), "--output", str(out))
        assert res.exit_code == 0, res.output
        assert json.loads((out / "results.json").read_text())["schema"] == SCHEMA


def test_board_is_rebuilt_only_with_force(built, run, tmp_path):
    out = tmp_path / "board"
    shutil.copytree(built, out)
    (out / "README.md").write_text("what this board is")  # a hand-written file beside the generated ones
    stale = out / "transcripts" / "stale.html"
    stale.write_text("a page no cell links")
    before = snapshot(out)
    generated = json.loads((out / "results.json").read_text())["generated"]
    res = cli("leaderboard", str(run), "--output", str(out))
    _one_line_error(res, f"{out} holds a leaderboard (generated {generated}); rebuilding it replaces its pages: add --force")
    assert snapshot(out) == before

    res = cli("leaderboard", str(run), "--output", str(out), "--force")
    assert res.exit_code == 0, res.output
    data = json.loads((out / "results.json").read_text())
    assert data["schema"] == SCHEMA and data["judges"][0]["judge"] == "sim:judge-a"
    assert (out / "README.md").read_text() == "what this board is"  # only the build's own files are touched
    assert not stale.exists()  # a rebuild replaces the pages
    assert (out / "index.html").exists() and (out / "leaderboard.md").exists()


def test_the_committed_board_is_left_untouched_without_force(run, tmp_path, monkeypatch):
    """The issue's case: `leaderboard RUN --output leaderboards` from the repository root. Run against a
    copy of the committed leaderboards/ folder, so the repository itself is never touched."""
    committed = REPO / "leaderboards"
    assert (committed / "results.json").is_file()
    shutil.copytree(committed, tmp_path / "leaderboards")
    before = snapshot(tmp_path / "leaderboards")
    assert snapshot(committed) == before
    monkeypatch.chdir(tmp_path)
    res = cli("leaderboard", str(run), "--output", "leaderboards")
    generated = json.loads((committed / "results.json").read_text())["generated"]
    _one_line_error(res, f"leaderboards holds a leaderboard (generated {generated}); "
                         "rebuilding it replaces its pages: add --force")
    assert snapshot(tmp_path / "leaderboards") == before  # results.json, index.html, every transcript page


def test_reproduce_board_step_passes_force():
    """`leaderboards/reproduce.sh board` rebuilds the committed board in place: it must say --force,
    and must not delete results.json first (the folder would no longer be recognised as a board)."""
    script = (REPO / "leaderboards" / "reproduce.sh").read_text()
    board = script[script.index("board() {"):]
    board = board[:board.index("\n}\n")]
    call = next(line for line in board.splitlines() if "oversight-bench leaderboard" in line)
    assert "--output leaderboards/" in call and "--force" in call
    removed = " ".join(line for line in board.splitlines() if line.strip().startswith("rm "))
    assert "leaderboards/results.json" not in removed and "leaderboards/transcripts" not in removed
