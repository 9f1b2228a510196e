"""Breaks found by the fifth (and sixth) adversarial pass of issue 37 that are not one bad-input line
(those are cases in test_bad_input.py): a store whose table is a recursive view, a built-task file
nested too deep to parse, a plugin's 5 MB error message, and a plugin writing to descriptor 1."""

from __future__ import annotations

import os
import sqlite3

import pytest

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


def test_error_lines_escape_terminal_controls(tmp_path):
    """Probe round 6, noticed: a path or spec holding ESC or a right-to-left override was echoed raw in
    the error line, so it could recolour or reorder what the user reads; now each is written as its
    escape, and the line stays one line."""
    from helpers import cli

    for name in ("d\x1b[31mx", "no\u202esuch", "a\x9bb\u2066c"):
        res = cli("report", str(tmp_path / name), "--output", str(tmp_path / "rep"))
        err = res.output
        assert res.exit_code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
        assert not any(c in err for c in "\x1b\u202e\x9b\u2066"), repr(err)
        assert name.encode("unicode_escape").decode("ascii") in err, repr(err)


def _llm_debate_csv(path, **transcript):
    """One row of Khan et al.'s CSV whose transcript has `transcript`'s fields over good ones."""
    import csv
    import json

    t = {"story": "The ship.", "question": "Q?", "answers": {"correct": "a", "incorrect": "b"},
         "names": {"correct": "Debater A", "incorrect": "Debater B"}, "rollout_type": "quality_sim",
         "rounds": [{"correct": "<quote>The ship.</quote>", "incorrect": "no"}]} | transcript
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "story", "answer", "transcript"])
        w.writerow(["0", "Q?", "s", "Debater A", json.dumps(t)])
    return path


@pytest.mark.parametrize("bad, says", [
    ({"answers": None}, "decision record cannot be stored: field answers holds a list; expected a list of texts"),
    ({"names": {"correct": [1], "incorrect": {"a": 1}}}, "a turn's speaker is list [1]; expected a name (text)"),
])
def test_an_import_the_store_would_refuse_writes_nothing(tmp_path, bad, says):
    """Probe round 6, 131/132: a transcript the store refused halfway left config.json and results.sqlite
    behind (a retry was refused as 'already holds a run'), and answers that are not text were blamed on
    the store ('results.sqlite is damaged'). Every record is checked before the folder is made."""
    from helpers import cli

    out = tmp_path / "runs" / "imported"
    res = cli("import", "llm-debate", str(_llm_debate_csv(tmp_path / "k.csv", **bad)), "--output", str(out))
    assert res.exit_code == 2 and says in res.output and "damaged" not in res.output, res.output
    assert res.output.count("\n") == 1 and not (tmp_path / "runs").exists()
    good = cli("import", "llm-debate", str(_llm_debate_csv(tmp_path / "ok.csv")), "--output", str(out))
    assert good.exit_code == 0, good.output


def test_build_task_refuses_a_fifo_output_instead_of_blocking(tmp_path):
    """Probe round 7, 061: `build-task --output FIFO` blocked in open(output, 'a') for ever (no reader)."""
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    res = cli_subprocess("build-task", "gsm8kqa", "--model", "openai:m,base_url=http://127.0.0.1:9/v1", "--limit", "1",
                         "--output", str(fifo), timeout=60)
    assert res.returncode == 2 and "is not a regular file" in res.stderr, res.stderr[-1000:]
