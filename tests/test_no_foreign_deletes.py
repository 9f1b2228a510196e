"""Nothing deleted or overwritten that the command did not write (issue 37.1): a refused or
interrupted start removes only its own files and empty folders, never a folder another run shares;
readers' output folders are refused when they hold anything but their own earlier output; the
writer's lock is an OS lock on the run folder, which no deleted file can undo."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from helpers import FAKE, REPO, cli
from oversight_bench.errors import BenchError
from oversight_bench.rundir.names import DB_NAME, LOCK_NAME
from oversight_bench.rundir.store import Store, in_use
from oversight_bench.rundir.writing import WritableRun


def _one_line_error(res, *needles: str) -> None:
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert "Traceback" not in res.output and len(err.splitlines()) == 1, err
    for n in needles:
        assert n in err, err


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("foreign") / "run"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1", "--protocols",
              "qa_without_article", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    return out


# -- a refused start removes only what it created ------------------------------------------------------


def test_abandoned_start_keeps_a_run_written_beside_it_in_a_new_parent(tmp_path):
    """Two runs launched into one new parent: the one whose start is refused removes its own folder,
    never the parent that now holds the other's finished run."""
    parent = tmp_path / "runs" / "X"
    b = WritableRun(parent / "b")  # made runs/, runs/X/ and runs/X/b/
    a = parent / "a"
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1", "--protocols",
              "qa_without_article", "--output", str(a), "--quiet")
    assert res.exit_code == 0, res.output
    b.close()  # b never began: refused
    assert (a / DB_NAME).is_file() and (a / "config.json").is_file()
    assert not (parent / "b").exists()
    assert sorted(p.name for p in parent.iterdir()) == ["a"]


def test_abandoned_start_removes_every_folder_it_made_when_empty(tmp_path):
    w = WritableRun(tmp_path / "new" / "deeper" / "run")
    w.close()
    assert list(tmp_path.iterdir()) == []


def test_abandoned_start_into_an_existing_folder_keeps_the_folder_and_others_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    w = WritableRun(out)
    (out / "notes.txt").write_text("mine")  # written meanwhile by someone else
    w.close()
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_interrupted_start_removes_only_its_own_files(tmp_path, monkeypatch):
    """A start interrupted (Ctrl-C) after its store was opened removes the store files and the folders
    it made, and a file another process put in the shared parent stays."""
    parent = tmp_path / "p"
    out = parent / "run"

    def interrupted(self, *a, **k):
        (parent / "other.txt").write_text("someone else's")
        raise KeyboardInterrupt

    from oversight_bench.rundir import writing
    monkeypatch.setattr(writing.WritableRun, "check_identity", interrupted)
    res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1", "--protocols",
              "qa_without_article", "--output", str(out), "--quiet")
    assert res.exit_code != 0  # click's "Aborted!"
    assert not out.exists()
    assert [p.name for p in parent.iterdir()] == ["other.txt"]


# -- the lock ---------------------------------------------------------------------------------------------


def test_deleting_files_cannot_let_a_second_writer_in(tmp_path):
    first = Store.open(tmp_path / "d", write=True)
    try:
        for p in (tmp_path / "d").iterdir():  # an old .lock, or anything not the store itself
            if not p.name.startswith(DB_NAME):
                p.unlink()
        (tmp_path / "d" / LOCK_NAME).unlink(missing_ok=True)
        with pytest.raises(BenchError, match="in use by another oversight-bench process"):
            Store.open(tmp_path / "d", write=True)
        assert in_use(tmp_path / "d")
    finally:
        first.close()
    assert not in_use(tmp_path / "d")
    Store.open(tmp_path / "d", write=True).close()


def test_second_process_refused_after_lock_file_deleted(tmp_path):
    """Across processes, with every non-store file deleted while the first holds the run."""
    d = tmp_path / "d"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys,time; from oversight_bench.rundir.store import Store; "
         f"s=Store.open({str(d)!r}, write=True); print('ok', flush=True); time.sleep(60)"],
        cwd=REPO, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout.readline().strip() == "ok"
        (d / LOCK_NAME).unlink(missing_ok=True)
        for p in d.iterdir():
            if not p.name.startswith(DB_NAME):
                p.unlink()
        time.sleep(0.1)
        res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1", "--protocols",
                  "qa_without_article", "--output", str(d), "--quiet")
        _one_line_error(res, "in use by another oversight-bench process")
    finally:
        holder.kill()
        holder.wait()
    assert (d / DB_NAME).exists()


# -- readers' output folders -------------------------------------------------------------------------------


def test_report_refuses_a_folder_of_other_files(run, tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "thesis.md").write_text("keep me")
    _one_line_error(cli("report", str(run), "--output", str(out), "--no-figures"), "thesis.md", "not empty")
    assert [p.name for p in out.iterdir()] == ["thesis.md"]


def test_report_refuses_a_folder_of_files_named_like_its_own(run, tmp_path):
    """Probe round 8, case 103: a user's report.md (a name a report writes) in the output folder was
    overwritten; only a folder holding the report's marker is an earlier report."""
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.md").write_text("my own notes")
    _one_line_error(cli("report", str(run), "--output", str(out), "--no-figures"), "oversight-bench-report.json")
    assert (out / "report.md").read_text() == "my own notes" and len(list(out.iterdir())) == 1
    (out / "oversight-bench-report.json").write_text("{}")  # a file of the marker's name no report wrote
    _one_line_error(cli("report", str(run), "--output", str(out), "--no-figures"), "oversight-bench-report.json")
    assert (out / "report.md").read_text() == "my own notes"


def test_report_rewrites_its_own_earlier_folder(run, tmp_path):
    out = tmp_path / "rep"
    assert cli("report", str(run), "--output", str(out), "--no-figures").exit_code == 0
    assert cli("report", str(run), "--output", str(out), "--no-figures").exit_code == 0
    (out / "x.txt").write_text("x")
    _one_line_error(cli("report", str(run), "--output", str(out), "--no-figures"), "x.txt")


def test_view_export_refuses_a_non_empty_folder(run, tmp_path):
    (tmp_path / "index.html").write_text("my homepage")
    _one_line_error(cli("view", str(run), "--export", str(tmp_path)), "not empty", "no cells.json")
    assert sorted(os.listdir(tmp_path)) == ["index.html"]
    assert (tmp_path / "index.html").read_text() == "my homepage"


def test_view_export_refuses_the_root_folder():
    """`view --export /` is the export's own check refusing `/` (asked of the check itself: a
    regression must not get to write pages into the machine's root while the test runs)."""
    from human_judging import view_export
    from oversight_bench.rundir.folders import refuse_foreign_output

    with pytest.raises(BenchError, match="--export / is not empty and is no earlier export"):
        refuse_foreign_output("/", "view --export", view_export._exported, "cells.json", flag="--export", what="export")


def test_view_export_rewrites_its_own_earlier_export(run, tmp_path):
    out = tmp_path / "site"
    assert cli("view", str(run), "--export", str(out)).exit_code == 0
    assert cli("view", str(run), "--export", str(out)).exit_code == 0
    (out / "README.md").write_text("mine")
    _one_line_error(cli("view", str(run), "--export", str(out)), "README.md")


def test_salvage_and_leaderboard_refuse_folders_of_other_files(run, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("k")
    _one_line_error(cli("salvage", str(run), "--output", str(out)), "not empty")
    _one_line_error(cli("leaderboard", str(run), "--output", str(out), "--force"), "holds no leaderboard")
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_view_export_refuses_a_cells_json_no_export_wrote(run, tmp_path):
    """Probe D08: a folder with the user's index.html and a cells.json of notes (not an export's
    manifest) is no earlier export: refused, both files kept."""
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("<h1>my homepage</h1>")
    (out / "cells.json").write_text("my cell-biology notes, not JSON")
    _one_line_error(cli("view", str(run), "--export", str(out)), "cells.json, which no earlier export wrote")
    assert (out / "index.html").read_text() == "<h1>my homepage</h1>"
    assert (out / "cells.json").read_text() == "my cell-biology notes, not JSON"
    (out / "cells.json").write_text('{"cells": [1, 2]}')  # JSON, but no manifest either
    _one_line_error(cli("view", str(run), "--export", str(out)), "cells.json, which no earlier export wrote")


@pytest.mark.parametrize("command, page", [("view", "view.css"), ("view", "rooms"), ("report", "report.md"),
                                           ("leaderboard", "index.html")])
def test_a_link_inside_an_earlier_output_is_not_written_through(run, tmp_path, command, page):
    """Probes D09/D10: an earlier export, report or leaderboard whose page (or subfolder) was replaced
    by a symbolic link to a file outside: the rewrite is refused in one line naming the link, and
    the file outside is unchanged."""
    import shutil

    out = tmp_path / "out"
    args = {"view": ["view", str(run), "--export", str(out)],
            "report": ["report", str(run), "--output", str(out), "--no-figures"],
            "leaderboard": ["leaderboard", str(run), "--output", str(out), "--force"]}[command]
    assert cli(*args).exit_code == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("precious, outside the output folder")
    target = out / page
    if target.is_dir():
        shutil.rmtree(target)
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    else:
        target.unlink()
        target.symlink_to(victim)
    _one_line_error(cli(*args), "symbolic link", page)
    assert victim.read_text() == "precious, outside the output folder"
    assert not any((tmp_path / "elsewhere").iterdir()) if (tmp_path / "elsewhere").exists() else True
