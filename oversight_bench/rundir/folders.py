"""The output folders of the commands that read runs (report, leaderboard, view --export, salvage,
export --inspect): never inside a run they read, never over files they did not write, never through
a symbolic or hard link. Checked before anything is read or written."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable, Iterable

from oversight_bench.errors import BenchError


def refuse_output_inside(output: str | Path, run_dirs: Iterable[str | Path], command: str, *, flag: str = "--output") -> None:
    """Readers never write into the run they read: refuse (one line) an `output` that is one of
    `run_dirs` or lies inside one (symbolic links followed), before anything is written. The one
    check of report, leaderboard, elo, salvage, `judge --from`, `--cache-from` and `view --export`."""
    try:
        out = Path(output).resolve()
    except (OSError, ValueError, RuntimeError):
        return  # a path that cannot be resolved is refused by the command's own output check
    for d in run_dirs:
        try:
            run = Path(d).resolve()
        except (OSError, ValueError, RuntimeError):
            continue
        if out == run or run in out.parents:
            raise BenchError(f"{command}: {flag} {output} is inside run directory {d}, which it reads; readers never write "
                             f"into a run: expected a folder outside every run given")


def refuse_foreign_output(output: str | Path, command: str, own: Callable[[str], bool], marker: str | None, *,
                          flag: str = "--output", what: str = "output",
                          marker_ok: Callable[[Path], bool] | None = None, folders: Iterable[str] = ()) -> None:
    """A reader's output folder must be missing, empty, or an earlier output of the same command: it
    holds only names `own` accepts (what the command itself writes there, and so may overwrite) and,
    unless `marker` is None (an output cut short by a full disk is rewritten too), `marker` -- one
    `marker_ok` accepts, where given (a cells.json of notes is no export's manifest). Anything else,
    `/` and a home folder included, is refused in one line before anything is written: a command
    writes its pages into a folder, never over someone else's files. Each own name must also be what
    the command writes there: a regular file, or a folder for the names in `folders` (a folder of
    the user's named groups.csv is no page to overwrite). Nor through them: a symbolic or hard link
    anywhere in the folder (an earlier page replaced by a link to a file outside) is refused too."""
    out = Path(output)
    if not (out.exists() or out.is_symlink()):
        return
    if not out.is_dir():
        raise BenchError(f"{command}: {flag} {output} is not a folder; expected a new or empty folder")
    try:
        names = {p.name for p in out.iterdir()}
    except OSError as exc:
        raise BenchError(f"{command}: cannot read {flag} {output}: {exc.strerror}; expected a new or empty folder") from None
    foreign = sorted(n for n in names if not own(n))
    if not foreign and marker is not None and marker in names and marker_ok is not None and not marker_ok(out / marker):
        foreign = [f"{marker}, which no earlier {what} wrote"]
    if names and (foreign or (marker is not None and marker not in names)):
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "") if foreign else f"no {marker}"
        raise BenchError(f"{command}: {flag} {output} is not empty and is no earlier {what} ({shown}); expected a "
                         f"new or empty folder, or one an earlier '{command}' wrote")
    folders = set(folders)
    for name in sorted(names):
        kind = _kind(out / name)
        want = "folder" if name in folders else "file"
        if kind not in (want, "symbolic link", None):  # a link is named by the check below
            raise BenchError(f"{command}: {flag} {output} holds {name}, which is a {kind} where an earlier {what} "
                             f"writes a {want}; expected a new or empty folder, or one an earlier '{command}' wrote "
                             f"(move {name} away)")
    found = first_link(out)
    if found is not None:
        link, kind = found
        raise BenchError(f"{command}: {flag} {output} holds {link.relative_to(out)}, {kind}, which no earlier "
                         f"{what} wrote and which a rewrite would write through; expected a new or empty folder, or "
                         f"one an earlier '{command}' wrote (remove the link)")


def _kind(path: Path) -> str | None:
    """What `path` is, links not followed: file (regular), folder, symbolic link, another kind, or
    None (gone since the folder was listed)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return ("file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode) else
            "symbolic link" if stat.S_ISLNK(mode) else "special file (not a regular file)")


def first_link(folder: Path) -> tuple[Path, str] | None:
    """The first entry inside `folder` (links not followed) through which a rewrite would change a
    file elsewhere, and what it is: a symbolic link, or a regular file with more than one name (a
    hard link: writing it in place writes the other name's file too). None where there is none."""
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in (*dirs, *files):
            path = Path(root) / name
            what = link_kind(path)
            if what is not None:
                return path, what
    return None


def link_kind(path: Path) -> str | None:
    """What `path` is, where writing it would write a file elsewhere: "a symbolic link", or "a hard
    link (a file with N names)"; None for anything else (or nothing there)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return f"a hard link (a file with {st.st_nlink} names)"
    return None
