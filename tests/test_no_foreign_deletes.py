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


# -- probe round 11 (issue 37): own names of another kind, hard links, listed pages, linked stores ----------


def test_an_own_name_of_another_kind_is_refused_in_one_line(run, tmp_path):
    """Case 102: an earlier report whose groups.csv is now a folder of the user's files (and an export
    whose rooms/ is now a file) is refused in one line naming it, not a traceback; both kept."""
    rep = tmp_path / "rep"
    assert cli("report", str(run), "--output", str(rep), "--no-figures").exit_code == 0
    (rep / "groups.csv").unlink()
    (rep / "groups.csv").mkdir()
    (rep / "groups.csv" / "mine.txt").write_text("mine")
    _one_line_error(cli("report", str(run), "--output", str(rep), "--no-figures"), "groups.csv, which is a folder")
    assert (rep / "groups.csv" / "mine.txt").read_text() == "mine"
    site = tmp_path / "site"
    assert cli("view", str(run), "--export", str(site)).exit_code == 0
    import shutil

    shutil.rmtree(site / "rooms")
    (site / "rooms").write_text("my notes")
    _one_line_error(cli("view", str(run), "--export", str(site)), "rooms, which is a file")
    assert (site / "rooms").read_text() == "my notes"
    lb = tmp_path / "lb"
    assert cli("leaderboard", str(run), "--output", str(lb)).exit_code == 0
    (lb / "index.html").unlink()
    (lb / "index.html").mkdir()
    (lb / "index.html" / "mine.txt").write_text("mine")
    _one_line_error(cli("leaderboard", str(run), "--output", str(lb), "--force"), "index.html, which is no regular file")
    assert (lb / "index.html" / "mine.txt").read_text() == "mine"


@pytest.mark.parametrize("command, page", [("view", "view.css"), ("view", "rooms/*.html"), ("report", "report.md"),
                                           ("leaderboard", "leaderboard.md")])
def test_a_hard_link_inside_an_earlier_output_is_not_written_through(run, tmp_path, command, page):
    """Case 103: an earlier output's page replaced by a hard link to the user's file elsewhere (a second
    name of that file): the rewrite is refused in one line naming it, and the user's file is unchanged."""
    out = tmp_path / "out"
    args = {"view": ["view", str(run), "--export", str(out)],
            "report": ["report", str(run), "--output", str(out), "--no-figures"],
            "leaderboard": ["leaderboard", str(run), "--output", str(out), "--force"]}[command]
    assert cli(*args).exit_code == 0
    thesis = tmp_path / "thesis.md"
    thesis.write_text("MY THESIS, months of work")
    target = next(out.glob(page))
    target.unlink()
    os.link(thesis, target)
    _one_line_error(cli(*args), "hard link", target.name)
    assert thesis.read_text() == "MY THESIS, months of work"


def test_view_export_refuses_a_users_cells_input_beside_their_page(run, tmp_path):
    """Case 101: the user's --cells input, in the documented shape and named cells.json, beside their own
    index.html is no earlier export (only an export's manifest says it wrote it): refused, both kept.
    A manifest that says so but lists a name no export writes is no export's either."""
    import json

    out = tmp_path / "mine"
    out.mkdir()
    cells = {"cells": {"my-cell": {"title": "my pick", "decisions": [["../run", "j", "k"]]}}}
    (out / "cells.json").write_text(json.dumps(cells))
    (out / "index.html").write_text("<h1>mine</h1>")
    _one_line_error(cli("view", str(run), "--export", str(out), "--cells", str(out / "cells.json")),
                    "cells.json, which no earlier export wrote")
    assert (out / "index.html").read_text() == "<h1>mine</h1>"
    assert json.loads((out / "cells.json").read_text()) == cells
    forged = {"written_by": "oversight-bench view --export", "cells": {}, "files": ["index.html", "../thesis.md"]}
    (out / "cells.json").write_text(json.dumps(forged))
    _one_line_error(cli("view", str(run), "--export", str(out)), "cells.json, which no earlier export wrote")
    assert (out / "index.html").read_text() == "<h1>mine</h1>"


def test_view_reexport_deletes_only_the_pages_its_manifest_lists(run, tmp_path):
    """Case 104: a file merely named like a room page (and one of any other name) in an earlier export
    is refused in one line before anything is deleted; a page the earlier export listed and this one
    does not write goes."""
    import json

    from oversight_bench.redact import forget_secrets

    forget_secrets()  # a secret another test registered in this process could mask part of the name
    out = tmp_path / "site"
    assert cli("view", str(run), "--export", str(out)).exit_code == 0
    mine = out / "rooms" / "0123456789abcdef.html"
    mine.write_text("mine, named like a page")
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    _one_line_error(cli("view", str(run), "--export", str(out)), "rooms/0123456789abcdef.html", "does not list")
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before and mine.read_text() == "mine, named like a page"
    (out / "rooms" / "NOTES.txt").write_text("mine")
    mine.unlink()
    _one_line_error(cli("view", str(run), "--export", str(out)), "rooms/NOTES.txt")
    (out / "rooms" / "NOTES.txt").unlink()
    manifest = json.loads((out / "cells.json").read_text())
    manifest["files"].append("rooms/0123456789abcdef.html")  # an earlier export's page of a room no longer given
    (out / "cells.json").write_text(json.dumps(manifest))
    mine.write_text("an old page")
    assert cli("view", str(run), "--export", str(out)).exit_code == 0
    assert not mine.exists() and "rooms/0123456789abcdef.html" not in json.loads((out / "cells.json").read_text())["files"]


def test_leaderboard_force_refuses_files_its_earlier_build_did_not_list(run, tmp_path):
    """Case 114: `leaderboard --force` over a board whose transcripts/ holds the user's pages (no cell of
    the earlier build's results.json lists them) is refused in one line; nothing is deleted."""
    lb = tmp_path / "lb"
    assert cli("leaderboard", str(run), "--output", str(lb)).exit_code == 0
    (lb / "transcripts").mkdir(exist_ok=True)
    (lb / "transcripts" / "my-analysis.html").write_text("mine")
    (lb / "transcripts" / "my-analysis.json").write_text("{}")
    _one_line_error(cli("leaderboard", str(run), "--output", str(lb), "--force"), "my-analysis.html", "no earlier build")
    assert (lb / "transcripts" / "my-analysis.html").read_text() == "mine"
    assert (lb / "transcripts" / "my-analysis.json").read_text() == "{}"


@pytest.mark.parametrize("how", ["symbolic", "hard"])
def test_a_run_refuses_a_store_linked_from_another_run(run, tmp_path, how):
    """Case 110: the lock is on the run folder, so a folder B whose results.sqlite (and config.json) is a
    link to run A's, while A's writer holds A, must not let a second writer into A's store: refused in
    one line, exit 2, before anything is written (B as it was)."""
    import shutil

    a, b = tmp_path / "A", tmp_path / "B"
    shutil.copytree(run, a)
    b.mkdir()
    held = Store.open(a, write=True)  # A's writer, running (a hard-linked A is refused too: opened first)
    try:
        for name in (DB_NAME, "config.json"):
            (b / name).symlink_to(a / name) if how == "symbolic" else os.link(a / name, b / name)
        res = cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "1", "--protocols",
                  "qa_without_article", "--output", str(b), "--quiet")
        _one_line_error(res, str(b / DB_NAME), f"{how} link")
    finally:
        held.close()
    assert sorted(p.name for p in b.iterdir()) == ["config.json", DB_NAME]
