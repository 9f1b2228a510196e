"""`build_report(dirs, output)`: read the runs, compute the report (`analysis.report.analyse`) and
write its folder: report.json, report.md (`render.report`), CSV tables and PNG figures
(`render.figures`). The report.json schema is described in `analysis/report.py`."""

from __future__ import annotations

import csv
import datetime as _dt
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from oversight_bench.analysis import stats
from oversight_bench.analysis.load import load_runs
from oversight_bench.analysis.report import _clean, analyse
from oversight_bench.errors import BenchError
from oversight_bench.provenance import git_commit
from oversight_bench.publish.stance import check_runs
from oversight_bench.render.figures import (fig_ablation, fig_accuracy, fig_accuracy_by_task, fig_consultancy_split,
                                            fig_elo, fig_open_role, fig_position, fig_reliability)
from oversight_bench.render.quality_text import worded
from oversight_bench.render.report import markdown
from oversight_bench.rundir.folders import refuse_foreign_output, refuse_output_inside
from oversight_bench.yamlio import strict_json

if TYPE_CHECKING:
    from oversight_bench.models import Spec


#: written first into a report's folder, before any page: a folder holding it and only REPORT_FILES is an
#: earlier report (finished, or cut short by a full disk), which a new report may overwrite; a folder
#: without it holds someone else's files, even ones named like a report's (a user's report.md)
MARKER = "oversight-bench-report.json"
#: every name a report writes into its folder; anything else there is refused
REPORT_FILES = frozenset({MARKER, "report.md", "report.json", "groups.csv", "permutation_tests.csv", "derived_tests.csv",
                          "open_role.csv", "position_bias.csv", "consultancy_split.csv", "judge_tool.csv",
                          "fig2_accuracy.png", "figB1_accuracy_by_task.png", "fig3_open_role.png", "fig4_elo.png",
                          "figA_ablation.png", "figA8_position_bias.png", "figA9_consultancy.png", "reliability.png"})


def build_report(dirs: Iterable[str | Path], output: str | Path | None = None, *, n_resamples: int = stats.N_RESAMPLES,
                 figures: bool = True, stance_check: Spec | str | None = None,
                 stance_calibration: str | Path | None = None) -> dict[str, Any]:
    """Analyse run directories; with `output` (never inside one of them), write report.json, report.md,
    CSV tables and PNG figures. `stance_check`: a checker model's spec (`publish/stance.py`), checked
    once here (a Spec the command checked is kept as it is) and handed down."""
    dirs = list(dirs)
    if output is not None:
        refuse_output_inside(output, dirs, "report")
        refuse_foreign_output(output, "report", REPORT_FILES.__contains__, MARKER, what="report", marker_ok=_is_marker)
    if stance_check:
        from oversight_bench.models import check_spec

        stance_check = check_spec(stance_check)  # a bad spec is one line before anything is read or written
    runs = load_runs(dirs, with_turns=True)
    stance = check_runs(runs, stance_check, stance_calibration) if stance_check else None
    stamp = {"generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "report_commit": git_commit()}
    report = _clean(analyse(runs, stamp=stamp, n_resamples=n_resamples, stance=stance))
    for row in report["groups"]:
        worded(row)  # the quality flags (`analysis.quality.Flag`s) in words, as report.json, the CSV and report.md hold them
    if output is None:
        return report
    out = Path(output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create report folder {out}: {exc.strerror}; expected a writable path") from None
    _write_marker(out)
    files = {"markdown": "report.md", "groups_csv": "groups.csv", "permutation_csv": "permutation_tests.csv",
             "open_role_csv": "open_role.csv", "position_bias_csv": "position_bias.csv",
             "consultancy_split_csv": "consultancy_split.csv"}
    if report["judge_tool"]:
        files["judge_tool_csv"] = "judge_tool.csv"
        write_csv(out / "judge_tool.csv", report["judge_tool"])
    write_csv(out / "groups.csv", report["groups"])
    write_csv(out / "permutation_tests.csv", report["permutation_tests"])
    if report["derived_tests"]:
        write_csv(out / "derived_tests.csv", report["derived_tests"])
        files["derived_tests_csv"] = "derived_tests.csv"
    write_csv(out / "open_role.csv", report["open_role"])
    write_csv(out / "position_bias.csv", report["position_bias"])
    write_csv(out / "consultancy_split.csv", report["consultancy_split"])
    if figures:
        for name, fn, arg in (("fig2_accuracy.png", fig_accuracy, report["groups"]),
                              ("figB1_accuracy_by_task.png", fig_accuracy_by_task, report["groups"]),
                              ("fig3_open_role.png", fig_open_role, report["open_role"]),
                              ("fig4_elo.png", fig_elo, report["elo"]),
                              ("figA_ablation.png", fig_ablation, report["groups"]),
                              ("figA8_position_bias.png", fig_position, report["position_bias"]),
                              ("figA9_consultancy.png", fig_consultancy_split, report["consultancy_split"]),
                              ("reliability.png", fig_reliability, report["calibration"])):
            if fn(arg, out / name):
                files[name.split(".")[0]] = name
    report["files"] = files
    (out / "report.md").write_text(markdown(report))
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return report


def _write_marker(out: Path) -> None:
    """The marker whole or not at all (a full disk mid-write leaves none, so the folder, empty, is
    still this report's to write): a temporary file beside it, then renamed."""
    tmp = out / (MARKER + ".tmp")
    try:
        tmp.write_text(json.dumps({"written_by": "oversight-bench report"}) + "\n")
        os.replace(tmp, out / MARKER)
    finally:
        tmp.unlink(missing_ok=True)


def _is_marker(path: Path) -> bool:
    """Whether `path` is a report's marker (a file of that name a user wrote is not)."""
    try:
        return strict_json(path.read_text(encoding="utf-8")).get("written_by") == "oversight-bench report"
    except (OSError, ValueError, AttributeError):
        return False


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Flat columns; a list of strings (a cell's quality flags) becomes one "; "-joined column."""
    def flat(v: Any) -> bool:
        return not isinstance(v, (dict, list)) or (isinstance(v, list) and all(isinstance(x, str) for x in v))

    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    keys = [k for k in keys if all(flat(r.get(k)) for r in rows)]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows([{k: "; ".join(v) if isinstance(v, list) else v for k, v in r.items() if k in keys} for r in rows])
