"""`view --export OUT [--cells FILE]`: the viewer's pages as static files, one paged room list per
cell, which a leaderboard links to (`export_static`, `write_room_pages`). The cells file is
untrusted input, checked field by field (`read_cells_file`); an earlier export's folder is replaced
only where it holds what an export writes."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable

from oversight_bench.api import (BenchError, load_json_text, read_input_bytes, refuse_foreign_output,
                                refuse_output_inside)

from human_judging.view_index import FLAGS, Index, Room, question_key, run_dirs
from human_judging.view_pages import TEMPLATES, Links, render

EXPORT_PAGE_SIZE = 100
CELL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,119}$")


BACK_LINK = re.compile(r"^(?!/)(?!.*//)[A-Za-z0-9._/-]{1,200}$")


def read_cells(path: str | Path) -> dict[str, dict[str, Any]]:
    """A cells file: {"cells": {ID: {"title": TEXT, "decisions": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}}.
    A relative RUN_DIR is read relative to the cells file's folder where that folder holds it (the
    leaderboard writes them so: a committed file names no machine's paths), else to the current one."""
    return read_cells_file(path)[0]


def read_cells_file(path: str | Path) -> tuple[dict[str, dict[str, Any]], dict[str, str] | None]:
    """`read_cells`, and the file's optional "back": {"link": PATH, "title": TEXT}, a page the exported
    pages link back to (PATH relative to the export folder, e.g. the leaderboard's ../index.html).
    The file is untrusted input: a regular file of at most MAX_CELLS_BYTES, JSON read with bounded
    nesting, and every field of the type named (else one BenchError naming the cell and field)."""
    p = Path(path)
    shape = "a JSON file of cells {\"cells\": {ID: {\"title\": TEXT, \"decisions\": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}}"
    data = load_json_text(read_input_bytes(p, "--cells", MAX_CELLS_BYTES), f"--cells {p}", shape)
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, dict):
        raise BenchError(f"--cells {p}: expected {shape}")
    for cid, cell in cells.items():
        if not CELL_ID.match(cid):
            raise BenchError(f"--cells {p}: cell id {_shown(cid)} is not a plain name; expected letters, digits, _ . - "
                             "(at most 120)")
        if not isinstance(cell, dict):
            raise BenchError(f"--cells {p}: cell {cid}: expected {{\"title\": TEXT, \"decisions\": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}, "
                             f"got {_json_type(cell)}")
        title = cell.get("title")
        if title is not None and not isinstance(title, str):
            raise BenchError(f"--cells {p}: cell {cid}: \"title\" is {_json_type(title)}; expected text (UTF-8)")
        ds = cell.get("decisions")
        if not isinstance(ds, list):
            raise BenchError(f"--cells {p}: cell {cid}: \"decisions\" is {_json_type(ds)}; "
                             "expected a list [[RUN_DIR, JUDGE, JOB_KEY], ...]")
        for n, d in enumerate(ds):
            if not (isinstance(d, list) and len(d) == 3 and all(isinstance(x, str) and x for x in d)):
                raise BenchError(f"--cells {p}: cell {cid}: decision #{n + 1} is {_shown(d)}; expected "
                                 "[RUN_DIR, JUDGE, JOB_KEY], three non-empty strings")
    base = p.parent
    for cell in cells.values():
        cell["decisions"] = [[_run_path(run_dir, base), judge, job] for run_dir, judge, job in cell["decisions"]]
    back = data.get("back")
    if back is not None:
        if not (isinstance(back, dict) and isinstance(back.get("link"), str) and _back_ok(back["link"])
                and (back.get("title") is None or isinstance(back.get("title"), str))):
            raise BenchError(f"--cells {p}: \"back\" must be {{\"link\": a relative path (letters, digits, . _ - /), "
                             "\"title\": TEXT}")
        back = {"link": back["link"], "title": back.get("title") or "back"}
    return cells, back


#: the largest cells file read (the committed leaderboard's rooms-cells.json, 46 cells, is 2.2 MB)
MAX_CELLS_BYTES = 64 << 20


def _json_type(x: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(x), type(x).__name__)


def _shown(x: Any) -> str:
    """A short, printable form of an untrusted value for an error line."""
    text = json.dumps(x, ensure_ascii=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _back_ok(link: str) -> bool:
    """A relative path: letters, digits, . _ - /; ".." only as leading steps up; no scheme, no host."""
    rest = link
    while rest.startswith("../"):
        rest = rest[3:]
    return bool(BACK_LINK.match(link)) and bool(rest) and ".." not in rest.split("/")


def _run_path(run_dir: str, base: Path) -> str:
    """A cells file's RUN_DIR: a relative one against the cells file's folder where a run is there."""
    path = Path(run_dir)
    if not path.is_absolute() and (base / path).is_dir():
        return str(base / path)
    return run_dir


def default_cells(index: Index) -> dict[str, dict[str, Any]]:
    """One cell per judge · protocol · task: the rooms that judge judged there."""
    cells: dict[str, dict[str, Any]] = {}
    for room in index.rooms:
        for v in room.verdicts:
            if v.unjudged:
                continue
            title = f"{v.judge} · {room.protocol} · {room.task}"
            cid = re.sub(r"[^A-Za-z0-9_.-]+", "-", title).strip("-")[:80] + "-" + hashlib.sha1(title.encode()).hexdigest()[:8]
            cell = cells.setdefault(cid, {"title": title, "decisions": []})
            cell["decisions"].append([str(index.dirs[v.run]), v.judge, room.job_key])
    return cells


#: the names an export writes at its top: an earlier export's folder holds only these
EXPORTED = re.compile(r"^(view\.css|index\.html|list-[0-9]+\.html|rooms|runs|questions|cells|cells\.json)$")
#: of those, the folders
EXPORTED_FOLDERS = frozenset({"rooms", "runs", "questions", "cells"})
#: what an export's manifest (cells.json) says of itself: a --cells input of the same shape, a
#: leaderboard's rooms-cells.json or a user's notes of that name never say it
WRITTEN_BY = "oversight-bench view --export"
#: every file an export writes but its manifest, relative to its folder: the manifest lists those it
#: wrote, and a later export deletes those only (a user's file merely named like a page is no page)
PAGE = re.compile(r"^(view\.css|index\.html|list-[0-9]+\.html|(rooms|questions)/[0-9a-f]{16}\.html|runs/[0-9]+\.html|"
                  r"cells/[A-Za-z0-9][A-Za-z0-9_.-]{0,119}/(index|page-[0-9]+)\.html)$")
#: every folder an export makes, relative to its folder
_FOLDER = re.compile(r"^(rooms|questions|runs|cells|cells/[A-Za-z0-9][A-Za-z0-9_.-]{0,119})$")


def _exported(name: str) -> bool:
    return bool(EXPORTED.match(name))


def _manifest_files(path: Path) -> set[str] | None:
    """The files the export whose manifest is `path` wrote, or None where `path` is no export's
    manifest: one says so ("written_by": WRITTEN_BY), lists its cells and lists only names an
    export writes ("files")."""
    try:
        data = load_json_text(read_input_bytes(path, "--export", MAX_CELLS_BYTES), str(path), "an export's cells.json")
    except BenchError:
        return None
    if not (isinstance(data, dict) and data.get("written_by") == WRITTEN_BY and isinstance(data.get("cells"), dict)
            and all(CELL_ID.match(k) and isinstance(v, dict) for k, v in data["cells"].items())
            and isinstance(data.get("files"), list) and all(isinstance(f, str) and PAGE.match(f) for f in data["files"])):
        return None
    return set(data["files"])


def _is_manifest(path: Path) -> bool:
    """Whether `path` is the cells.json an export writes, not a user's file of that name (their
    --cells input, in the documented shape, included)."""
    return _manifest_files(path) is not None


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _manifest(cells: dict[str, Any], files: list[str]) -> str:
    return json.dumps({"written_by": WRITTEN_BY, "cells": cells, "files": files}, indent=1, ensure_ascii=False)


def _list_names(n_rooms: int, page_size: int, first: str, prefix: str) -> list[str]:
    """The pages of a paged room list: `first`, then {prefix}-2.html, ..."""
    return [first if n == 1 else f"{prefix}-{n}.html" for n in range(1, max(1, -(-n_rooms // page_size)) + 1)]


def export_static(dirs: Iterable[str | Path], output: str | Path, *, cells: dict[str, dict[str, Any]] | None = None,
                  page_size: int = EXPORT_PAGE_SIZE, index: Index | None = None,
                  back: dict[str, str] | None = None) -> dict[str, Any]:
    """Write the viewer's pages as static files into `output`: index.html (+ list-N.html), rooms/ID.html,
    questions/KEY.html, cells/CELL/index.html (+ page-N.html) for each cell (`cells`, else one per
    judge · protocol · task) and cells.json, the manifest ({"written_by", "cells": {cell: {title, link,
    rooms, pages}}, "files": every page written}). Returns its cells. Never writes inside a run
    directory. With `back` ({"link", "title"}), every page links back to that page (a path relative
    to `output`). The same runs and cells export to the same bytes."""
    own = index is None
    index = index or Index(dirs, search=False)  # static pages search nothing
    try:
        out = Path(output)
        refuse_output_inside(out, index.dirs, "view", flag="--export")
        refuse_foreign_output(out, "view --export", _exported, "cells.json", flag="--export", what="export",
                              marker_ok=_is_manifest, folders=EXPORTED_FOLDERS)
        cells = default_cells(index) if cells is None else cells
        where = {str(d): i for i, d in enumerate(index.dirs)}
        where.update({str(d.resolve()): i for i, d in enumerate(index.dirs)})
        by_decision = {(v.run, v.judge, r.job_key): r for r in index.rooms for v in r.verdicts}
        cell_rooms: dict[str, tuple[list[Room], int]] = {}
        for cid, cell in cells.items():
            rooms, missing, seen = [], 0, set()
            for run_dir, judge, job_key in cell["decisions"]:
                i = where.get(str(run_dir), where.get(str(Path(run_dir).resolve())))
                room = None if i is None else (by_decision.get((i, judge, job_key))  # a table's "X (debiased)" label too
                                               or by_decision.get((i, str(judge).removesuffix(" (debiased)"), job_key)))
                if room is None:
                    missing += 1
                elif room.id not in seen:
                    seen.add(room.id)
                    rooms.append(room)
            cell_rooms[cid] = (rooms, missing)
        files = sorted({"view.css", *_list_names(len(index.rooms), page_size, "index.html", "list"),
                        *(f"rooms/{room.id}.html" for room in index.rooms),
                        *(f"runs/{i + 1}.html" for i in range(len(index.runs))),
                        *(f"questions/{question_key(task, qid)}.html" for task, qid in index.by_question),
                        *(f"cells/{cid}/{p}" for cid, (rooms, _) in cell_rooms.items()
                          for p in _list_names(len(rooms), page_size, "index.html", "page"))})
        _clear_export(out)
        try:
            for sub in ("rooms", "questions", "cells", "runs"):
                (out / sub).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BenchError(f"cannot create export folder {out}: {exc.strerror}") from None
        # the manifest first, listing every page to come: an export cut short is still one a later export replaces
        _write(out / "cells.json", _manifest({}, files))
        _write(out / "view.css", (TEMPLATES / "viewer" / "view.css").read_text())
        _write_list(index, index.rooms, out, "index.html", lambda n: "index.html" if n == 1 else f"list-{n}.html",
                    0, "all rooms", page_size, back=back)
        for room in index.rooms:
            _write(out / "rooms" / f"{room.id}.html", render("viewer/room.html", links=Links(True, 1, back), v=index.room_view(room)))
        for i in range(len(index.runs)):
            _write(out / "runs" / f"{i + 1}.html", render("viewer/run.html", links=Links(True, 1, back),
                                                          o=index.overview(i), static=True))
        for task, qid in index.by_question:
            key = question_key(task, qid)
            _write(out / "questions" / f"{key}.html",
                   render("viewer/question.html", links=Links(True, 1, back), v=index.question_view(key)))
        manifest: dict[str, Any] = {}
        for cid, cell in cells.items():
            rooms, missing = cell_rooms[cid]
            folder = out / "cells" / cid
            folder.mkdir(parents=True, exist_ok=True)
            pages = _write_list(index, rooms, folder, "index.html", lambda n: "index.html" if n == 1 else f"page-{n}.html",
                                2, str(cell.get("title") or cid), page_size, missing=missing, back=back)
            manifest[cid] = {"title": cell.get("title") or cid, "link": f"cells/{cid}/index.html", "rooms": len(rooms),
                             "missing": missing, "pages": [f"cells/{cid}/{p}" for p in pages]}
        _write(out / "cells.json", _manifest(manifest, files))
        return manifest
    finally:
        if own:
            index.close()


def _clear_export(out: Path) -> None:
    """An earlier export's pages go (its folder passed `refuse_foreign_output`), so that no page of a
    room or cell this export lacks stays behind: exactly the files its manifest lists, never one
    merely named like a page. Anything else in the folder (a user's file or folder, a listed name
    that is no longer a file) is refused in one line first, before anything is deleted."""
    listed = _manifest_files(out / "cells.json")
    if listed is None:  # a new or empty folder (refuse_foreign_output let nothing else through)
        return
    for root, folders, names in os.walk(out):
        here = Path(root).relative_to(out)
        for name, ok in [*((n, False) for n in sorted(names)), *((n, True) for n in sorted(folders))]:
            rel = (here / name).as_posix()
            if rel == "cells.json" or (_FOLDER.match(rel) if ok else rel in listed and (out / rel).is_file()):
                continue
            raise BenchError(f"view --export: --export {out} holds {rel}, which the earlier export's cells.json does "
                             f"not list as {'a folder' if ok else 'a page'} it wrote; expected a new or empty folder, "
                             f"or one an earlier 'view --export' wrote (move {rel} away)")
    for rel in sorted(listed):
        (out / rel).unlink(missing_ok=True)
    cells = out / "cells"
    if cells.is_dir():
        for cell in cells.iterdir():
            if cell.is_dir() and not any(cell.iterdir()):
                cell.rmdir()


def write_room_pages(run_dirs: list[str], folder: Path, cells_file: Path) -> dict[str, Any]:
    """The `register_room_writers` hook's writer: a leaderboard's room pages, as `view RUN_DIRS --export
    FOLDER --cells CELLS_FILE` writes them (the cells file's `back` link included)."""
    cells, back = read_cells_file(cells_file)
    return export_static(run_dirs, folder, cells=cells, back=back)


def _write_list(index: Index, rooms: list[Room], folder: Path, first: str, name_of: Callable[[int], str], depth: int,
                title: str, page_size: int, missing: int = 0, back: dict[str, str] | None = None) -> list[str]:
    n_pages = max(1, -(-len(rooms) // page_size))
    names = [name_of(n) for n in range(1, n_pages + 1)]
    for n in range(1, n_pages + 1):
        ctx = {"rooms": rooms[(n - 1) * page_size: n * page_size], "n": len(rooms), "total": len(index.rooms),
               "page": n, "n_pages": n_pages, "labels": index.labels, "params": {}, "flags": FLAGS,
               "page_link": lambda k: names[k - 1], "title": title, "missing": missing}
        _write(folder / names[n - 1], render("viewer/list.html", links=Links(True, depth, back), static=True, **ctx))
    return names
