"""`build_leaderboard(dirs, output)`: read the runs, build the judge rows (`analysis.leaderboard`),
carry an earlier board's cells (`publish.carry` reads them, `analysis.carry` checks and merges them),
and write the board's folder: results.json (its schema in `analysis/leaderboard.py`), leaderboard.md
and index.html (`render.leaderboard`),
fig2_judges.png (`render.figures`), the carried transcript pages, and the cells file from which the
viewer plugin draws the room pages. The folder is checked before anything is written."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from oversight_bench.analysis import quality as quality_mod
from oversight_bench.analysis import stance as stance_mod
from oversight_bench.analysis import stats
from oversight_bench.analysis.carry import _carry_cells
from oversight_bench.analysis.leaderboard import (CELLS_FILE, MIN_N, OLD_SCHEMAS, PAGE_LINK, ROOMS_DIR,
                                                  SCHEMA, SELF_JUDGED, _argued, _by_job, _cell_quality, _cell_stats,
                                                  _elo_table, _headlines, _is_crossplay, _judge_kind,
                                                  _qkey, _suite_of, cell_id, figure_bars, models_rooms_id,
                                                  paired_tests, rooms_link, self_judged)
from oversight_bench.analysis.load import load_runs
from oversight_bench.analysis.report import _clean, _proto_key, run_provenance
from oversight_bench.deviations import recorded_deviations
from oversight_bench.errors import BenchError
from oversight_bench.protocol import headline_pairs
from oversight_bench.provenance import git_commit
from oversight_bench.publish.carry import MAX_CARRY_BYTES, load_carry
from oversight_bench.publish.stance import check_runs
from oversight_bench.redact import redact_text
from oversight_bench.render.figures import fig_judges
from oversight_bench.render.leaderboard import carried_page, human_about, markdown, render_index
from oversight_bench.render.quality_text import bar_text, stance_text, worded
from oversight_bench.rundir.folders import first_link, refuse_output_inside
from oversight_bench.rundir.store import in_use
from oversight_bench.yamlio import load_json_text, read_input_bytes


def _write(path: Path, text: str) -> None:
    """Every page and file of the leaderboard, with secrets redacted (runs written before
    redaction existed may hold them)."""
    path.write_text(redact_text(text))


def _write_page(tdir: Path, slug: str, page: dict[str, Any]) -> None:
    """A carried cell's transcript page, rendered again from the data its board kept beside it, and
    that data beside it again (so a later build can carry it on): pages are built, never copied."""
    tdir.mkdir(parents=True, exist_ok=True)
    _write(tdir / f"{slug}.json", json.dumps(page, ensure_ascii=False, indent=0))
    _write(tdir / f"{slug}.html", carried_page(page))


#: the files a build writes at the top of its folder (beside transcripts/ and ROOMS_DIR)
BOARD_FILES = ("results.json", "leaderboard.md", "index.html", CELLS_FILE, "fig2_judges.png")


def check_output(output: str | Path, force: bool = False) -> set[str]:
    """Refuse, before anything is written or deleted, an output folder a build would damage. A build
    overwrites results.json, leaderboard.md, index.html, the cells file and the figure and deletes
    transcript pages it does not link, so: a missing or empty folder is fine; a folder holding a
    leaderboard (a results.json of this SCHEMA or an older one) only with `force`, and only where its
    transcripts/ holds nothing but the pages that board's results.json lists (a user's page there
    is neither deleted nor overwritten); any other non-empty folder never, `force` or not. Returns
    the names in transcripts/ the earlier build wrote: the only ones a rebuild may delete."""
    out = Path(output)
    if not out.exists():
        return set()
    if not out.is_dir():
        raise BenchError(f"{out} is not a folder; give --output a new or empty folder")
    try:
        if not any(out.iterdir()):
            return set()
    except OSError as exc:
        raise BenchError(f"cannot read leaderboard folder {out}: {exc.strerror}; expected a readable folder") from None
    board = None
    try:
        data = load_json_text(read_input_bytes(out / "results.json", "leaderboard", MAX_CARRY_BYTES),
                              str(out / "results.json"), "a leaderboard")
        if isinstance(data, dict) and data.get("schema") in (SCHEMA, *OLD_SCHEMAS):
            board = data
    except (OSError, BenchError):
        pass
    if board is None:
        raise BenchError(f"{out} is not empty and holds no leaderboard (no {SCHEMA} results.json); "
                         "give --output a new or empty folder")
    if not force:
        raise BenchError(f"{out} holds a leaderboard (generated {board.get('generated') or 'unknown'}); "
                         "rebuilding it replaces its pages: add --force")
    found = first_link(out)
    if found is not None:  # a page replaced by a link to a file outside: a rebuild would write through it
        link, kind = found
        raise BenchError(f"{out} holds {link.relative_to(out)}, {kind}, which no leaderboard build wrote; "
                         "remove it, or give --output a new or empty folder")
    for name in BOARD_FILES:  # a folder of the user's named like a page the build rewrites: never written into
        if (out / name).exists() and not (out / name).is_file():
            raise BenchError(f"{out} holds {name}, which is no regular file where a leaderboard build writes one; move "
                             "it away, or give --output a new or empty folder")
    pages = _listed_pages(board)
    tdir = out / "transcripts"
    if tdir.exists() or tdir.is_symlink():
        try:
            entries = sorted(tdir.iterdir()) if tdir.is_dir() else None
        except OSError as exc:
            raise BenchError(f"cannot read {tdir}: {exc.strerror}; expected a readable folder") from None
        if entries is None:
            raise BenchError(f"{tdir} is not a folder, where a leaderboard build writes its transcript pages; "
                             "move it away, or give --output a new or empty folder")
        foreign = [p.name for p in entries if p.name not in pages or not p.is_file()]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise BenchError(f"{tdir} holds {shown}, which no earlier build wrote (its results.json lists no such "
                             "page), and a rebuild deletes or overwrites what is there: move it away, or give --output "
                             "a new or empty folder")
    return pages


def _listed_pages(board: dict[str, Any]) -> set[str]:
    """The transcript pages an earlier build wrote, as its results.json lists them (each carried
    cell's `transcripts` link, and the data file beside it): NAME.html and NAME.json."""
    pages: set[str] = set()
    for row in board.get("judges") if isinstance(board.get("judges"), list) else []:
        cells = row.get("cells") if isinstance(row, dict) else None
        for cell in cells.values() if isinstance(cells, dict) else []:
            link = cell.get("transcripts") if isinstance(cell, dict) else None
            match = PAGE_LINK.fullmatch(link) if isinstance(link, str) else None
            if match:
                pages |= {f"{match.group(1)}.html", f"{match.group(1)}.json"}
    return pages


def _check_rooms_folder(rooms: Path) -> None:
    """The room pages go into ROOMS_DIR: refuse, before anything is written, one that holds something but
    no earlier export's cells.json (the writer then checks every name it would replace)."""
    try:
        foreign = rooms.exists() and (not rooms.is_dir() or (any(rooms.iterdir()) and not (rooms / "cells.json").is_file()))
    except OSError as exc:
        raise BenchError(f"cannot read {rooms}: {exc.strerror}") from None
    if foreign:
        raise BenchError(f"{rooms} holds something other than the room pages a build writes (no cells.json); "
                         "move it away or give --output another folder")


def _write_room_pages(dirs: list, out: Path, n_cells: int) -> dict[str, Any] | None:
    """The room pages the cells link to, written by the first room writer a plugin registered (the
    viewer's): the build names each cell's rooms in CELLS_FILE and the plugin draws them into
    ROOMS_DIR (an earlier build's pages there replaced). None where no writer is installed."""
    if not n_cells:
        return None
    from oversight_bench.registry import get_registry

    writers = get_registry().entries["room_writers"]
    if not writers:
        return None
    return next(iter(writers.values())).obj([str(d) for d in dirs], out / ROOMS_DIR, out / CELLS_FILE)


def _relative(run_dir: str, base: Path) -> str:
    """A run folder as the cells file names it: relative to the board folder (never the machine's
    absolute path), with / separators. Symbolic links are kept, not resolved."""
    return Path(os.path.relpath(os.path.abspath(run_dir), os.path.abspath(base))).as_posix()


def build_leaderboard(dirs: Iterable[str | Path], output: str | Path, *, show_small: bool = False,
                      min_n: int = MIN_N, n_resamples: int = stats.N_RESAMPLES, figures: bool = True,
                      carry: str | Path | None = None, include_flagged: bool = False,
                      force: bool = False, stance_check: str | None = None,
                      stance_calibration: str | Path | None = None) -> dict[str, Any]:
    """Build from run folders; with `carry` (a previous results.json), keep its cells that no run given
    measures (each marked with the build it came from), so a leaderboard can grow across machines.
    Flagged cells stay out of the headline tests unless `include_flagged`. With `stance_check` (a checker
    model spec, `publish/stance.py`), every built cell with arguments gets the share of its arguments
    that argue the other side or concede, beside the checker's accuracy on its calibration turns
    (`stance_calibration`, default the cached khan-2024 suite). `output` must be missing,
    empty or (with `force`) hold a leaderboard (`check_output`), checked before anything is written."""
    dirs = list(dirs)
    refuse_output_inside(output, dirs, "leaderboard")
    earlier_pages = check_output(output, force)
    _check_rooms_folder(Path(output) / ROOMS_DIR)
    for d in dirs:
        if in_use(d):
            raise BenchError(f"{d} is still being written by another oversight-bench process; a leaderboard publishes "
                             f"finished runs: build it once that run has finished")
    board = Path(output) if (Path(output) / "results.json").is_file() else None  # a board rebuilt (check_output)
    prev = load_carry(carry, board) if carry else None
    runs = load_runs(list(dirs), with_turns=True)
    cells: dict[tuple[str, str, str], list] = defaultdict(list)  # (judge, protocol, scope) -> decisions
    by_judge: dict[str, list] = defaultdict(list)
    runs_of: dict[str, set] = defaultdict(set)
    cfg_of = {str(r.dir): r.config or {} for r in runs}
    for r in runs:
        suite = _suite_of(r.config or {})
        for d in r.decisions:
            if d.unjudged or _is_crossplay(d, r.config or {}):
                continue
            d = d.with_(scope=f"suite:{suite}" if suite else (d.task_type or "unknown"))
            # a judge with a tool (beyond the paper) is its own row, never pooled with itself without; the
            # label is only the row's key: the decision keeps its judge, by which its turns and rooms are found
            row = f"{d.judge} (judge tool: {d.judge_tool})" if d.judge_tool else d.judge
            cells[(row, d.protocol, d.scope)].append(d)
            by_judge[row].append(d)
            runs_of[row].add(str(r.dir))
    if not cells and not any(r.decisions for r in runs) and not prev:
        raise BenchError("no judged decisions in " + ", ".join(str(r.dir) for r in runs) + "; expected finished runs")
    out = Path(output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create leaderboard folder {out}: {exc.strerror}; expected a writable path") from None
    turns_for = quality_mod.turns_lookup(runs)
    stance_of, stance = None, None
    if stance_check:  # before anything is written: a checker that cannot load fails the build here
        with_args = {d.run_dir for (_, p, _), ds in cells.items() if _argued(p) for d in ds}
        argued = [r for r in runs if str(r.dir) in with_args]  # the runs behind cells with arguments, no other
        by_job, stance = check_runs(argued, stance_check, stance_calibration)
        stance_of = lambda d: by_job.get((str(d.run_dir), d.job_key, d.judge)) or []  # noqa: E731
    humans = sorted(j for j in by_judge if _judge_kind(j) == "human")
    human_ds = {h: _by_job(by_judge[h]) for h in humans}  # human judge -> (protocol, scope, job) -> decisions
    columns = sorted({(p, s) for (_, p, s) in cells}, key=lambda ps: (ps[1].startswith("suite:"), ps[1], _proto_key(ps[0])))
    judges_out = []
    room_cells: dict[str, dict[str, Any]] = {}  # the cells file: cell id -> title, decisions
    for judge in sorted(by_judge, key=lambda j: (_judge_kind(j) == "human", j)):
        row: dict[str, Any] = {"judge": judge, "kind": _judge_kind(judge), "cells": {}, "headlines": []}
        for (p, s) in columns:
            ds = cells.get((judge, p, s))
            if not ds:
                continue
            c = {"protocol": p, "scope": s, **_cell_stats(ds), "agents": sorted({str(d.agent) for d in ds})}
            if self_judged(judge, p, c["agents"]):
                c["self_judged"] = SELF_JUDGED
            c["small"] = c["n"] < min_n
            c.update(_cell_quality(ds, turns_for))
            if stance_of is not None and _argued(p):
                fig = stance_mod.figures(it for d in ds for it in stance_of(d))
                c["quality"].update(fig)
                c["stance"] = stance_text(fig, stance) or None
            c["per_question"] = {_qkey(k): v for k, v in stats.per_question(ds).items()}
            c["deviations"] = sorted({x for rd in {d.run_dir for d in ds} for x in recorded_deviations(cfg_of[rd], p)})
            if row["kind"] == "model":
                refs = []
                for h in humans:
                    ref = [x for d in ds for x in human_ds[h].get((p, s, d.job_key), [])]
                    if ref:
                        t = stats.paired_permutation_test(stats.per_question(ds), stats.per_question(ref), n_resamples=n_resamples)
                        refs.append({"judge": h, **_cell_stats(ref), "p_value": t["p_value"], "diff": t["diff"]})
                if refs:
                    c["references"] = refs
            cid = cell_id(judge, p, s)
            room_cells[cid] = {"title": f"{judge} · {p} · {s}",
                               "decisions": sorted({(_relative(d.run_dir, out), d.judge, d.job_key) for d in ds})}
            c["rooms"] = rooms_link(cid)
            row["cells"][f"{p} · {s}"] = c
        row["deviations"] = sorted({x for rd in runs_of[judge] for x in recorded_deviations(cfg_of[rd])})
        row["provenance"] = [run_provenance(r) for r in runs if str(r.dir) in runs_of[judge]]
        judges_out.append(row)
    for row in judges_out:  # the human judges on exactly the rooms the models' cells of the column count
        if row["kind"] != "human":
            continue
        for key, c in row["cells"].items():
            jobs = {d.job_key for (j, p, s), ds in cells.items() if _judge_kind(j) == "model"
                    and f"{p} · {s}" == key for d in ds}
            on = [d for (p, s, job), hs in human_ds[row["judge"]].items() if f"{p} · {s}" == key and job in jobs for d in hs]
            if on:  # the figure the cell shows: its link lists exactly these rooms, "all N rooms" the rest
                cid = models_rooms_id(row["judge"], c["protocol"], c["scope"])
                room_cells[cid] = {"title": f"{row['judge']} · {key} · on the rooms the models' cells count",
                                   "decisions": sorted({(_relative(d.run_dir, out), d.judge, d.job_key) for d in on})}
                c["on_model_rooms"] = {**_cell_stats(on), "rooms": rooms_link(cid)}
    # the room pages first of what a rebuild writes: a rooms/ folder holding anything an earlier export did not
    # write is refused there (by the writer), before any transcript page is written or deleted
    _write(out / CELLS_FILE, json.dumps({
        "about": (f"The decisions each cell of results.json counts, as [RUN_DIR (relative to this folder), JUDGE, JOB_KEY]: "
                  f"`oversight-bench view RUN_DIRS --export {ROOMS_DIR} --cells {CELLS_FILE}` writes each cell's rooms."),
        "back": {"link": "../index.html", "title": "leaderboard"}, "cells": room_cells},
        indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    used = {run for c in room_cells.values() for run, _, _ in c["decisions"]}  # cross-play runs have no room
    written = _write_room_pages([r.dir for r in runs if _relative(str(r.dir), out) in used], out, len(room_cells))
    n_carried = _carry_cells(prev, judges_out, columns, min_n, lambda slug, page: _write_page(out / "transcripts", slug, page)) if prev else 0
    columns.sort(key=lambda ps: (ps[1].startswith("suite:"), ps[1], _proto_key(ps[0])))
    warnings = [f"{row['judge']} · {key}: no human reference (the human judges' {key} cell is carried, without its "
                "rooms); give this build the suite's import folder too"
                for row in judges_out if row["kind"] == "model" for key, c in row["cells"].items()
                if not c.get("carried") and c["scope"].startswith("suite:") and not c.get("references")
                and any(h["kind"] == "human" and h["cells"].get(key, {}).get("carried") for h in judges_out)]
    for row in judges_out:
        row["headlines"] = _headlines(row, n_resamples, include_flagged)
        row["paired"] = paired_tests(row, n_resamples)
        for c in row["cells"].values():
            worded(c)  # the quality flags in words (`analysis.quality.Flag`s; a carried cell's already are)
        if row["kind"] == "human":
            row["about"] = human_about(row)
    tdir = out / "transcripts"
    linked = {c.get("transcripts") for r in judges_out for c in r["cells"].values()}
    if tdir.is_dir():
        for name in earlier_pages:  # the earlier build's pages of cells not carried are stale; nothing else goes
            if f"transcripts/{Path(name).stem}.html" not in linked:
                (tdir / name).unlink(missing_ok=True)
        if not any(tdir.iterdir()):
            tdir.rmdir()
    n_pages = sum(1 for t in linked if t and (out / t).exists())
    if room_cells and written is None:
        warnings.append(f"room pages not written: no room writer is installed (the viewer plugin, `pip install "
                        f"'oversight-bench[web]'`); the cells link to {ROOMS_DIR}/cells/<cell>/, which `oversight-bench "
                        f"view RUN_DIRS --export {out / ROOMS_DIR} --cells {out / CELLS_FILE}` writes")
    elo = _elo_table(runs)  # only from cross-play runs given: an earlier build's table is never carried (issue 34.4)
    if elo is None and prev and prev.get("elo"):
        warnings.append(f"the carried board's Elo table ({prev['elo'].get('n_games')} games, built "
                        f"{str(prev.get('generated') or 'unknown')[:10]}) is not carried: Elo is rated only from the "
                        "cross-play runs given to this build")
    result = _clean({"schema": SCHEMA, "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                     "commit": git_commit(), "min_n": min_n, "include_flagged": include_flagged,
                     "quality_bar": bar_text(), "stance_check": stance,
                     "columns": [{"key": f"{p} · {s}", "protocol": p, "scope": s} for p, s in columns],
                     "headline_names": [f"{a} − {b}" for a, b in headline_pairs()], "judges": judges_out,
                     "elo": elo, "n_transcripts": n_pages, "n_carried": n_carried, "warnings": warnings, "figure": None,
                     "rooms": {"cells_file": CELLS_FILE, "folder": ROOMS_DIR, "n_cells": len(room_cells),
                               "written": written is not None},
                     "readme": "README.md" if (out / "README.md").is_file() else None})
    if figures and fig_judges(figure_bars(result["judges"], result["columns"], min_n),
                              [c["protocol"] for c in result["columns"]], out / "fig2_judges.png", min_n):
        result["figure"] = "fig2_judges.png"
    elif (out / "fig2_judges.png").exists():
        (out / "fig2_judges.png").unlink()  # a figure of an earlier build would not show this table
    _write(out / "results.json", json.dumps(result, indent=1, ensure_ascii=False))
    _write(out / "leaderboard.md", markdown(result, show_small))
    _write(out / "index.html", render_index(result))
    return result
