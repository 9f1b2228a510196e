"""`oversight-bench leaderboard` cannot destroy a board: `--output` has no default, a folder holding a
leaderboard is rebuilt only with `--force`, any other non-empty folder is refused (with or without
it), and every refusal is one line, exit 2, before anything is written or deleted."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import REPO, cli

from oversight_bench.analysis.leaderboard import SCHEMA
from fake_runs import legacy_board, make_run


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
    stale = out / "transcripts" / "stale.html"  # an earlier build's page that no cell of this build links
    stale.parent.mkdir()
    stale.write_text("a page no cell links")
    earlier = json.loads((out / "results.json").read_text())  # listed by the earlier build, as a carried cell's page
    next(iter(earlier["judges"][0]["cells"].values()))["transcripts"] = "transcripts/stale.html"
    (out / "results.json").write_text(json.dumps(earlier))
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
    assert '--output "$board"' in call and "--force" in call and "board=${BOARD:-leaderboards}" in board
    removed = " ".join(line for line in board.splitlines() if line.strip().startswith("rm "))
    assert "results.json" not in removed and "transcripts" not in removed


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_reproduce_board_step_builds_the_board_and_its_room_pages(tmp_path):
    """The `board` step, run as a user runs it (from a repository root holding runs/leaderboard/ and
    the nyu-2023 import in the user cache): the board, the cells file and every cell's room list, with
    no absolute path in any file it writes; run again, it replaces them (no stale room page left)."""
    import os
    import sys

    from oversight_bench.commands import rejudge
    from oversight_bench.rundir.store import Store

    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "oversight-bench").is_file():
        pytest.skip("the oversight-bench command is not installed beside this Python")
    root = tmp_path / "repo"
    (root / "leaderboards").mkdir(parents=True)
    shutil.copy(REPO / "leaderboards" / "reproduce.sh", root / "leaderboards" / "reproduce.sh")
    runs = root / "runs" / "leaderboard"
    make_run(runs / "qa-closed-sim", n_questions=3, judge="sim:judge-a")
    human = make_run(tmp_path / "cache" / "suites" / "nyu-2023-1", n_questions=2, judge="human:nyu-2023", seed=2)
    st = Store.open(human, write=True)
    try:
        st.write_config({**(st.read_config() or {}), "import": {"kind": "nyu-debate"}})
    finally:
        st.close()
    rejudge(str(human), "scripted:default", str(runs / "nyu-scripted"), progress=False)
    res = cli("leaderboard", str(runs / "qa-closed-sim"), "--output", str(tmp_path / "committed"))  # the board a clone holds
    assert res.exit_code == 0, res.output
    for f in (tmp_path / "committed").iterdir():
        shutil.move(str(f), root / "leaderboards" / f.name)
    (root / "leaderboards" / "README.md").write_text("what this board is")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "CARRY": "0",
           "OVERSIGHT_BENCH_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")])}
    for attempt in (1, 2):
        done = subprocess.run(["bash", "leaderboards/reproduce.sh", "--quiet", "board"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        board = root / "leaderboards"
        if attempt == 1:
            stale = board / "rooms" / "rooms" / "0123456789abcdef.html"  # a room page no build of these runs writes
            stale.write_text("an old page")
            manifest = json.loads((board / "rooms" / "cells.json").read_text())  # which an earlier export wrote
            manifest["files"].append("rooms/0123456789abcdef.html")
            (board / "rooms" / "cells.json").write_text(json.dumps(manifest))
    assert not stale.exists()
    res = json.loads((board / "results.json").read_text())
    assert {r["judge"] for r in res["judges"]} == {"sim:judge-a", "scripted:default", "human:nyu-2023"}
    assert res["readme"] == "README.md" and (board / "README.md").read_text() == "what this board is"
    for row in res["judges"]:
        for cell in row["cells"].values():
            listing = board / cell["rooms"]
            assert listing.is_file() and f"{cell['n_records']} of " in listing.read_text()
    ref = next(r for r in res["judges"] if r["judge"] == "scripted:default")["cells"]["debate · suite:nyu-2023"]
    assert ref["references"][0]["judge"] == "human:nyu-2023"
    for f in board.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".html", ".md"):
            text = f.read_text()
            assert str(tmp_path) not in text and str(Path.home()) + "/" not in text, f
    assert json.loads((board / "rooms" / "cells.json").read_text())["cells"] and not any(
        c["missing"] for c in json.loads((board / "rooms" / "cells.json").read_text())["cells"].values())


# -- published pages are built, never copied ----------------------------------------------------------

def _one_line_refusal(res, *needles: str):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.stderr
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.fixture()
def carried(tmp_path):
    """A board of judge A (to be carried: an earlier build's, with transcript pages) and a run of judge
    B (this build's)."""
    a = make_run(tmp_path / "a", n_questions=3, judge="sim:judge-a")
    b = make_run(tmp_path / "b", n_questions=3, judge="sim:judge-b", seed=1)
    res = cli("leaderboard", str(a), "--output", str(tmp_path / "old"))
    assert res.exit_code == 0, res.output
    pages = legacy_board(tmp_path / "old")  # a board of the earlier schema, whose cells had transcript pages
    assert pages and all(p.with_suffix(".json").is_file() for p in pages)  # each page keeps its data
    return tmp_path, b, pages


def test_carry_refuses_a_symlinked_page(carried):
    """A carried page that is a link (to any local file) is refused, nothing is written, and the
    file it points at reaches no page."""
    tmp, b, pages = carried
    secret = tmp / "secret.txt"
    secret.write_text("SSH-PRIVATE-KEY-CONTENTS")
    for victim in (pages[0], pages[0].with_suffix(".json")):
        victim.unlink()
        victim.symlink_to(secret)
        out = tmp / f"new-{victim.suffix[1:]}"
        res = cli("leaderboard", str(b), "--output", str(out), "--carry", str(tmp / "old" / "results.json"))
        _one_line_refusal(res, "symbolic link", victim.name)
        assert not out.exists()
        victim.unlink()
    (tmp / "old" / "transcripts").rename(tmp / "elsewhere")
    (tmp / "old" / "transcripts").symlink_to(tmp / "elsewhere")  # the whole folder a link
    res = cli("leaderboard", str(b), "--output", str(tmp / "new-dir"), "--carry", str(tmp / "old" / "results.json"))
    _one_line_refusal(res, "symbolic link")


@pytest.mark.parametrize("link", ["../../secret.html", "/etc/hostname", "javascript:alert(1)", "transcripts/../x.html",
                                  "transcripts/sub/x.html"])
def test_carry_refuses_a_link_out_of_its_transcripts(carried, link):
    tmp, b, _ = carried
    prev = json.loads((tmp / "old" / "results.json").read_text())
    next(iter(prev["judges"][0]["cells"].values()))["transcripts"] = link
    (tmp / "prev.json").write_text(json.dumps(prev))
    res = cli("leaderboard", str(b), "--output", str(tmp / "new"), "--carry", str(tmp / "prev.json"))
    _one_line_refusal(res, "--carry", "transcripts/NAME.html")
    assert not (tmp / "new").exists()


def test_carried_pages_are_rendered_again_from_their_data(carried):
    """Markup added to a carried page is not republished (the page is rendered from its data), and
    markup in its data is escaped; a page without data (an older board) leaves its cell unlinked."""
    tmp, b, pages = carried
    pages[0].write_text(pages[0].read_text() + "<script>copied()</script>")
    data = json.loads(pages[0].with_suffix(".json").read_text())
    data["rooms"][0]["question"] = "<script>fromdata()</script>"
    data["rooms"][0]["turns"][0]["round"] = "<b>r</b>"
    pages[0].with_suffix(".json").write_text(json.dumps(data))
    pages[1].with_suffix(".json").unlink()
    res = cli("leaderboard", str(b), "--output", str(tmp / "new"), "--carry", str(tmp / "old" / "results.json"))
    assert res.exit_code == 0, res.output
    page = (tmp / "new" / "transcripts" / pages[0].name).read_text()
    assert "copied()" not in page and "<script>fromdata" not in page and "<b>r</b>" not in page
    assert "&lt;script&gt;fromdata()&lt;/script&gt;" in page and "Round &lt;b&gt;r&lt;/b&gt;" in page
    assert not (tmp / "new" / "transcripts" / pages[1].name).exists()
    cells = [c for r in json.loads((tmp / "new" / "results.json").read_text())["judges"] for c in r["cells"].values()]
    assert f"transcripts/{pages[1].name}" not in {c.get("transcripts") for c in cells}
    assert f"transcripts/{pages[0].name}" in {c.get("transcripts") for c in cells}

    bad = dict(data, rooms=[dict(data["rooms"][0], answers="<not a list>")])  # data of the wrong shape: refused
    pages[0].with_suffix(".json").write_text(json.dumps(bad))
    res = cli("leaderboard", str(b), "--output", str(tmp / "new2"), "--carry", str(tmp / "old" / "results.json"))
    _one_line_refusal(res, "--carry page data", "answers")
    assert not (tmp / "new2").exists()


HOSTILE = "<img src=x onerror=alert(1)>"


def test_foreign_store_fields_are_escaped_on_every_page(tmp_path):
    """Every text field of a turn and decision from a foreign store (role, speaker, the text, the raw
    verdict) is text on the board and on the room pages its cells link; a value of the wrong type (a
    round or a side in words, a mapping as the text, words as probabilities) is refused in one line
    naming the record and the field (the store's schema, issue 37.5), before anything is written."""
    import sqlite3

    def hostile(run, turn: dict, decision: dict) -> None:
        con = sqlite3.connect(run / "results.sqlite")
        for rowid, kind, data in con.execute("SELECT rowid, kind, data FROM records").fetchall():
            d = json.loads(data)
            d.update(turn if kind == "turn" else decision)
            con.execute("UPDATE records SET data = ? WHERE rowid = ?", (json.dumps(d), rowid))
        con.commit()
        con.close()

    run = make_run(tmp_path / "run", n_questions=2, judge="sim:judge-a")
    hostile(run, dict(role='"><script>r()</script>', speaker=HOSTILE, shown=f"<quote>{HOSTILE}</quote>"), dict(raw=HOSTILE))
    board = tmp_path / "board"
    res = cli("leaderboard", str(run), "--output", str(board))
    assert res.exit_code == 0, res.output
    pages = [p.read_text() for p in board.rglob("*.html")]
    assert len(pages) > 10 and all("<img src=x" not in text and "<script>r()" not in text for text in pages)
    argued = [p.read_text() for p in (board / "rooms" / "rooms").glob("*.html") if 'class="turn' in p.read_text()]
    assert argued and all("&lt;img src=x onerror=alert(1)&gt;" in text for text in argued)

    for i, (turn, decision, field) in enumerate([(dict(round=HOSTILE), {}, "round"), (dict(defends=HOSTILE), {}, "defends"),
                                                  (dict(shown={"x": HOSTILE}), {}, "shown"),
                                                  ({}, dict(probs=["high", HOSTILE]), "probs")]):
        run = make_run(tmp_path / f"bad{i}", n_questions=2, judge="sim:judge-a")
        hostile(run, turn, decision)
        res = cli("leaderboard", str(run), "--output", str(tmp_path / f"board{i}"))
        assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
        assert f"field {field} holds" in res.output and "salvage" in res.output
        assert not (tmp_path / f"board{i}").exists()


def test_markdown_outputs_escape_html(tmp_path):
    """A judge, agent or task name from a run is text in leaderboard.md and report.md, not markup."""
    run = make_run(tmp_path / "run", n_questions=2, judge=f"sim:{HOSTILE}", agent="sim:<script>a()</script>")
    assert cli("leaderboard", str(run), "--output", str(tmp_path / "board"), "--show-small").exit_code == 0
    assert cli("report", str(run), "--output", str(tmp_path / "rep")).exit_code == 0
    for md in (tmp_path / "board" / "leaderboard.md", tmp_path / "rep" / "report.md"):
        text = md.read_text()
        assert "<img" not in text and "<script>" not in text, md
        assert "&lt;img src=x onerror=alert(1)>" in text, md


def test_a_run_still_being_written_is_not_published(run, tmp_path):
    """A run whose writer holds its lock has not finished: its cells would count part of its rooms."""
    import fcntl
    import os

    fd = os.open(run, os.O_RDONLY | os.O_DIRECTORY)  # a writer's lock: the run folder itself (issue 37.1)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        res = cli("leaderboard", str(run), "--output", str(tmp_path / "board"))
        _one_line_error(res, f"{run} is still being written by another oversight-bench process; a leaderboard "
                             f"publishes finished runs: build it once that run has finished")
        assert not (tmp_path / "board").exists()
    finally:
        os.close(fd)  # the lock goes with it
    assert cli("leaderboard", str(run), "--output", str(tmp_path / "board")).exit_code == 0


def test_carry_with_a_lone_surrogate_reads_it_as_a_replacement_character(carried):
    """JSON may escape a lone surrogate ("\\ud800"), which is no character: the one strict reader
    (`yamlio.strict_json`) reads it as U+FFFD, as every reader does, so the board is written with it."""
    tmp, b, pages = carried
    prev = json.loads((tmp / "old" / "results.json").read_text())
    prev["judges"][0]["judge"] = "x\ud800y"
    (tmp / "prev.json").write_text(json.dumps(prev))  # ensure_ascii: written as the escape
    out = tmp / "new"
    res = cli("leaderboard", str(b), "--output", str(out), "--carry", str(tmp / "prev.json"))
    assert res.exit_code == 0, res.output
    assert "x\ufffdy" in {j["judge"] for j in json.loads((out / "results.json").read_text(encoding="utf-8"))["judges"]}


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "big"])
def test_carry_that_is_no_bounded_regular_file_is_refused(carried, target, monkeypatch):
    """--carry pointing at /dev/zero (never ends), a FIFO (blocks) or a file over the bound is one line."""
    import os

    from oversight_bench.publish import carry

    tmp, b, _ = carried
    prev = tmp / "prev.json"
    if target == "fifo":
        os.mkfifo(prev)
    elif target == "big":
        monkeypatch.setattr(carry, "MAX_CARRY_BYTES", 1000)
        shutil.copy(tmp / "old" / "results.json", prev)
    else:
        prev.symlink_to(target)
    res = cli("leaderboard", str(b), "--output", str(tmp / "new"), "--carry", str(prev))
    _one_line_refusal(res, "--carry", "prev.json", "not a regular file" if target != "big" else "more than 1,000 bytes")
    assert not (tmp / "new").exists()


LINKY = "x[a](javascript:alert(8))*bold*"
IMAGE = "![i](http://evil.example/t.png)"


def _no_link_or_image(md: str) -> None:
    """The Markdown, rendered (markdown-it, CommonMark with GFM tables), has no link and no image."""
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    own = ('<a href="README.md">', '<a href="results.json">', '<a href="index.html">')  # the board's own links
    for tag in own:
        rendered = rendered.replace(tag, "")
    assert "<a " not in rendered and "<img" not in rendered and "<em>" not in rendered, rendered


def test_markdown_outputs_make_no_link_or_image_from_foreign_text(tmp_path):
    """A judge, agent or run folder named like a Markdown link, and a carried board's value that is a
    Markdown image, are text in leaderboard.md and report.md: no link, image or emphasis."""
    run = make_run(tmp_path / LINKY, n_questions=2, judge=f"sim:{LINKY}", agent=f"sim:{LINKY}")
    assert cli("leaderboard", str(run), "--output", str(tmp_path / "board"), "--show-small").exit_code == 0
    assert cli("report", str(run), "--output", str(tmp_path / "rep")).exit_code == 0
    for md in (tmp_path / "board" / "leaderboard.md", tmp_path / "rep" / "report.md"):
        text = md.read_text()
        assert "x\\[a\\](javascript:alert(8))\\*bold\\*" in text, md
        _no_link_or_image(text)
    prev = json.loads((tmp_path / "board" / "results.json").read_text())
    for row in prev["judges"]:
        row["deviations"] = [*row.get("deviations", []), IMAGE]
        for cell in row["cells"].values():
            cell["flagged"] = [IMAGE]
    prev["generated"] = IMAGE
    (tmp_path / "prev.json").write_text(json.dumps(prev))
    other = make_run(tmp_path / "other", n_questions=2, judge="sim:judge-b", seed=1)
    res = cli("leaderboard", str(other), "--output", str(tmp_path / "board2"), "--show-small",
              "--carry", str(tmp_path / "prev.json"))
    assert res.exit_code == 0, res.output
    text = (tmp_path / "board2" / "leaderboard.md").read_text()
    assert "!\\[i\\](http://evil.example/t.png)" in text
    _no_link_or_image(text)
