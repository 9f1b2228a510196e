"""The store records its format version; a run of another format is a one-line error, not a crash."""

from __future__ import annotations

import sqlite3

import pytest

from oversight_bench.errors import BenchError
from oversight_bench.rundir.store import SCHEMA_VERSION, Store


def _version(directory) -> int:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()


def test_new_store_records_its_version(tmp_path):
    Store.open(tmp_path / "run", write=True).close()
    assert _version(tmp_path / "run") == SCHEMA_VERSION


def test_store_written_before_versions_opens_and_is_stamped(tmp_path):
    st = Store.open(tmp_path / "run", write=True)
    st.write_job("k", {f: "x" for f in ("judge", "agent", "protocol", "task", "question_id", "assignment", "answer_order")},
                 [], {"raw": "", "answer": 1, "correct": True})
    st.close()
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    con.execute("PRAGMA user_version=0")  # as every run before this change was written
    con.close()
    ro = Store.open(tmp_path / "run")  # read-only: opens, left as it is
    assert ro.count("decision") == 1
    ro.close()
    assert _version(tmp_path / "run") == 0
    Store.open(tmp_path / "run", write=True).close()  # a resume stamps it
    assert _version(tmp_path / "run") == SCHEMA_VERSION


@pytest.mark.parametrize("write", [False, True])
def test_newer_store_is_a_one_line_error(tmp_path, write):
    Store.open(tmp_path / "run", write=True).close()
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(BenchError, match=rf"written by a newer oversight-bench \(store format {SCHEMA_VERSION + 1}; this version reads up to {SCHEMA_VERSION}\)") as exc:
        Store.open(tmp_path / "run", write=write)
    assert "\n" not in str(exc.value)
    if write:  # the lock was released: another open is not refused as "in use"
        with pytest.raises(BenchError, match="newer"):
            Store.open(tmp_path / "run", write=True)


@pytest.mark.parametrize("content, needle", [
    (b"this is not sqlite at all" * 100, "is damaged (file is not a database)"),  # the integrity check speaks first
    (None, "is not an oversight-bench store (tables: other)"),
])
def test_foreign_database_is_a_one_line_error(tmp_path, content, needle):
    d = tmp_path / "run"
    d.mkdir()
    if content is None:
        con = sqlite3.connect(d / "results.sqlite")
        con.execute("CREATE TABLE other (x)")
        con.close()
    else:
        (d / "results.sqlite").write_bytes(content)
    with pytest.raises(BenchError) as exc:
        Store.open(d)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_cli_reports_an_incompatible_store_in_one_line(tmp_path):
    from helpers import cli

    Store.open(tmp_path / "run", write=True).close()
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    con.execute("PRAGMA user_version=99")
    con.close()
    res = cli("export", str(tmp_path / "run"))
    assert res.exit_code == 2 and "store format 99" in res.output


def test_v1_store_is_read_as_is_and_upgraded_by_a_resume(tmp_path):
    """Store format 2 only added the `meta` table (the run's identity): read-only commands read a v1
    run as it is; opening it to write (a resume) adds the table and stamps the current format."""
    st = Store.open(tmp_path / "run", write=True)
    st.write_identity({"seed": 1})
    assert st.read_identity() == {"seed": 1}
    st.close()
    con = sqlite3.connect(tmp_path / "run" / "results.sqlite")
    con.execute("DROP TABLE meta")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    ro = Store.open(tmp_path / "run")
    assert ro.read_identity() is None and ro.count("decision") == 0
    ro.close()
    assert _version(tmp_path / "run") == 1
    rw = Store.open(tmp_path / "run", write=True)
    assert rw.read_identity() is None
    rw.close()
    assert _version(tmp_path / "run") == SCHEMA_VERSION
