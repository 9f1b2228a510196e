"""Breaks found by the fifth (and sixth) adversarial pass of issue 37 that are not one bad-input line
(those are cases in test_bad_input.py): a store whose table is a recursive view, a built-task file
nested too deep to parse, a plugin's 5 MB error message, and a plugin writing to descriptor 1."""

from __future__ import annotations

import os
import sqlite3

from helpers import cli_subprocess


def test_salvage_skips_a_view_standing_in_for_a_table(tmp_path):
    """Probe 958: `records` replaced by a recursive view made salvage run for ever (SQLite's sort file
    grew ~50 MB/s in /var/tmp); only real tables are read now, and the view is named in the errors."""
    from fake_runs import make_run
    from oversight_bench.rundir.salvage import COLUMNS

    run = make_run(tmp_path / "run", n_questions=2)
    con = sqlite3.connect(run / "results.sqlite")
    cols = ", ".join(f"i AS {c}" for c in COLUMNS["records"])
    con.executescript(f"ALTER TABLE records RENAME TO records_before; CREATE VIEW records AS WITH RECURSIVE "
                      f"n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT {cols} FROM n;")
    con.commit()
    con.close()
    res = cli_subprocess("salvage", str(run), "--output", str(tmp_path / "saved"), timeout=120)
    assert res.returncode in (0, 2) and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert "records: no such table (or not a table)" in res.stdout + res.stderr


def test_build_task_reads_past_a_line_nested_too_deep(tmp_path):
    """Probe 967: a line of 200,000 nested brackets in the built-task JSONL was a RecursionError
    traceback; the one bounded JSON reader skips it and keeps the lines it can read."""
    from task_configs.build_task import _done_ids

    out = tmp_path / "built.jsonl"
    out.write_text("[" * 200_000 + "]" * 200_000 + '\n{"id": "q1"}\n{"id": NaN}\n')
    assert _done_ids(out) == {"q1"}


def test_a_plugins_error_is_cut_to_one_short_line():
    """Probe 603: a 5 MB import error was printed whole, on stdout and again on stderr."""
    from oversight_bench.registry import _one_line

    line = _one_line(ImportError("x" * 5_000_000))
    assert len(line) < 600 and line.endswith("(5,000,000 characters)")


def test_a_plugins_raw_writes_to_descriptor_1_go_to_stderr(capfd):
    """Probe 601: `os.write(1, ...)` at a plugin's import landed in export's JSONL on stdout."""
    from oversight_bench.registry import _Guard

    with _Guard()():
        os.write(1, b"PLUGIN-NOISE\n")
        print("PLUGIN-PRINT")
    os.write(1, b"OWN-OUTPUT\n")
    out, err = capfd.readouterr()
    assert "PLUGIN-NOISE" in err and "PLUGIN-PRINT" in err and "PLUGIN" not in out
    assert "OWN-OUTPUT" in out


def test_a_speaker_that_is_not_text_is_one_line():
    """Probe 132 (round 6): an imported transcript naming a debater [1] ended in `TypeError:
    unhashable type: 'list'` in check_speakers; it is one BenchError naming the job."""
    import pytest

    from oversight_bench.errors import BenchError
    from oversight_bench.rundir.rows import check_speakers

    with pytest.raises(BenchError, match=r"job j1: a turn's speaker is list \[1\]; expected a name"):
        check_speakers("j1", "debate", [{"speaker": "Debater A"}, {"speaker": [1]}])
    check_speakers("j1", "debate", [{"speaker": "Debater A"}, {"speaker": "Debater B"}])
