"""One evidence model (issue 35.1): every reader of a run goes through `rundir.reader.RunReader`,
whose typed records (`rundir.records`) are published as docs/records-schema.json."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from fake_runs import make_run
from oversight_bench.rundir import records, schema
from oversight_bench.rundir.reader import RunReader
from helpers import stored_calls, stored_records

REPO = Path(__file__).resolve().parents[1]
#: the core and every plugin package: nothing in them but `oversight_bench/rundir/` opens a store
SCANNED = ("oversight_bench", "human_judging", "model_adapters", "protocol_plugins", "task_configs", "transcript_suites")
RUNDIR = REPO / "oversight_bench" / "rundir"
#: a path component naming a run's store files
STORE_FILE = re.compile(r"results\.sqlite(-wal|-shm|-journal)?")
#: the store module's names that open or locate a store
STORE_NAMES = {"DB_NAME", "connect_readonly", "_snapshot"}
#: sqlite3 connections outside rundir that are to no run's store, and why
OWN_DATABASES = {"human_judging/study.py": "the human study's own database (human_study.sqlite), beside the run it writes"}


def store_openings(source: str, name: str) -> list[str]:
    """Where `source` (a module outside rundir) opens or locates a run's store: a path literal
    naming results.sqlite, an import of the store module's opening names, or an sqlite3 connection
    to anything but memory."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and STORE_FILE.fullmatch(node.value):
            found.append(f"line {node.lineno}: the path {node.value!r}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("oversight_bench.rundir"):
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in STORE_NAMES]
        elif isinstance(node, ast.Attribute) and node.attr in STORE_NAMES and node.attr != "_snapshot":
            found.append(f"line {node.lineno}: uses .{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "connect"
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "sqlite3"
              and not (node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == ":memory:")
              and name not in OWN_DATABASES):
            found.append(f"line {node.lineno}: sqlite3.connect")
    return found


def test_no_module_outside_rundir_opens_a_store():
    offenders = {}
    for package in SCANNED:
        for path in sorted((REPO / package).rglob("*.py")):
            if RUNDIR in path.parents:
                continue
            name = path.relative_to(REPO).as_posix()
            hits = store_openings(path.read_text(encoding="utf-8"), name)
            if hits:
                offenders[name] = hits
    assert not offenders, ("these modules open a run's store themselves; read it through rundir.RunReader "
                           f"(and test a folder with rundir.is_run_dir): {offenders}")


@pytest.mark.parametrize("source", [
    'open(run / "results.sqlite")',
    'watch = [d / "results.sqlite-wal"]',
    "from oversight_bench.rundir.store import DB_NAME",
    "from oversight_bench.rundir.store import connect_readonly as c",
    "conn = store.connect_readonly(d)",
    "import sqlite3\nsqlite3.connect(str(d) + '/x')",
])
def test_the_scan_finds_a_store_opened_by_hand(source):
    assert store_openings(source, "oversight_bench/analysis/x.py")


def test_the_scan_lets_text_about_the_store_and_memory_databases_be():
    source = ('msg = "(no results.sqlite); expected a stored run"\nimport sqlite3\nsqlite3.connect(":memory:")\n'
              "from oversight_bench.rundir import is_run_dir")
    assert store_openings(source, "human_judging/search.py") == []


def test_committed_records_schema_is_the_models():
    committed = json.loads((REPO / "docs" / "records-schema.json").read_text())
    assert committed == records.records_schema(), (
        "docs/records-schema.json is stale: regenerate it with python -c 'import json; from oversight_bench.rundir."
        "records import records_schema; print(json.dumps(records_schema(), indent=1))' > docs/records-schema.json")


def _names(fields: dict, prefix: str = "") -> set[str]:
    out = set()
    for name, spec in fields.items():
        out.add(prefix + name)
        if isinstance(spec, dict):
            out |= _names(spec, f"{prefix}{name}.")
    return out


def _model_names(model, prefix: str = "") -> set[str]:
    import typing

    out = set()
    for name, info in model.model_fields.items():
        out.add(prefix + name)
        for arg in (info.annotation, *typing.get_args(info.annotation)):
            if isinstance(arg, type) and issubclass(arg, records._Open):
                out |= _model_names(arg, f"{prefix}{name}.")
    return out


@pytest.mark.parametrize("kind", sorted(records.MODELS))
def test_records_name_the_fields_the_row_checks_check(kind):
    """The typed records and the row checks (`rundir.schema`, which name the failing row) describe
    the same fields: a field added to one is added to the other."""
    assert _model_names(records.MODELS[kind]) == _names(schema.KINDS[kind])


#: values a stored field may hold (JSON's, and numbers past what SQLite holds), for comparing the checks
_PROBES = [None, True, False, 0, 1, 2, 3, -1, 2**63, -2**63, 2**63 - 1, 0.5, 1.5, -0.5, float("inf"), float("nan"), "x", "",
           [], [0.5, 0.5], [0.5], [0.25, 0.5, 0.25], [1, 0], [2, 0], ["a"], ["a", 1], {}, {"a": 1}, [{"role": "user"}],
           [{"data": "d", "mime": "m"}], [{"data": 1, "mime": "m"}], [[1]], {"x": [1]}]


def _leaf_fields(model, prefix: str = ""):
    """(path, annotation) of every field of a record model, nested records' fields in their place."""
    import typing

    from oversight_bench.rundir.schema import _check_of

    for name, hint in typing.get_type_hints(model, include_extras=True).items():
        if name not in model.model_fields:
            continue
        inner = [a for a in (hint, *typing.get_args(hint)) if isinstance(a, type) and issubclass(a, records._Open)]
        if inner:
            yield from _leaf_fields(inner[0], f"{prefix}{name}.")
        else:
            yield prefix + name, hint, _check_of(hint, name)


@pytest.mark.parametrize("kind", sorted(records.MODELS))
def test_the_row_checks_accept_what_the_records_accept_field_by_field(kind):
    """`rundir.schema` derives each kind's checks from its model (`records.MODELS`), so a field or a
    type changed in one cannot be missed in the other: for every field, the row check and the model's
    own validation (strict, as the records read) accept the same values. (Before the derivation, a
    turn's `seq` was nullable in the model and not in the check.)"""
    from pydantic import TypeAdapter

    for path, hint, (fits, expected) in _leaf_fields(records.MODELS[kind]):
        adapter = TypeAdapter(hint)
        for value in _PROBES:
            try:
                adapter.validate_python(value, strict=True)
                valid = True
            except ValidationError:
                valid = False
            assert fits(value) == valid, f"{kind} field {path}: the check ({expected}) and the model disagree on {value!r}"


def test_a_field_type_without_a_check_stops_the_derivation():
    class Odd(records._Record):
        name: records.Text
        odd: set[int] | None = None

    assert list(schema.fields_of(records.Image)) == ["data", "mime"]
    with pytest.raises(TypeError, match=r"Odd.odd: no check for its type .*rundir.schema._CHECKS"):
        schema.fields_of(Odd)


def test_records_validate_without_coercion():
    base = {"kind": "decision", "job_key": "k", "judge": "j", "protocol": "debate", "task": "quality", "question_id": "q"}
    d = records.Decision.from_stored({**base, "correct": 0, "extra": {"debiased": True, "mine": [1]}, "plugin_field": "x"})
    assert d.correct == 0 and d.correct is not False
    assert d.stored() == {**base, "correct": 0, "extra": {"debiased": True, "mine": [1]}, "plugin_field": "x"}
    for bad in ({"correct": "yes"}, {"probs": [0.5, 2]}, {"answer": 3}, {"judge": None}):
        with pytest.raises(ValidationError):
            records.Decision.from_stored({**base, **bad})
    turn = records.Turn.from_stored({**base, "kind": "turn", "role": "debater", "speaker": "Debater A", "content": "x",
                                     "extra": {"budget": {"forced": True, "argument_tokens": 12}}})
    assert turn.budget.forced is True and turn.budget.argument_tokens == 12
    assert records.Turn.from_stored({**base, "kind": "turn", "role": "r", "speaker": "s", "content": None}).budget.cut is None


def test_a_kept_record_gives_back_its_stored_dict_exactly():
    """`from_stored(keep=True)` (what `RunReader.job_records` and `calls_of` read for the viewer's raw
    JSON) keeps the stored dict, and each nested object's part of it: `stored()` gives it back with its
    key order, where a model dump puts the named fields first."""
    call = {"response": {"finish": ["stop"], "texts": ["hi"]}, "model": "m", "key": "k" * 64,
            "request": {"temperature": 0.5, "messages": [{"role": "user", "content": "x"}], "kind": "generate"}}
    kept, dumped = records.Call.from_stored(call, keep=True), records.Call.from_stored(call)
    assert list(kept.stored()) == ["response", "model", "key", "request"] != list(dumped.stored())
    assert list(kept.stored()["request"]) == ["temperature", "messages", "kind"] and kept.request.stored() is call["request"]
    turn = {"extra": {"format": {"over_word_limit": 300, "truncated_from_words": 212}}, "kind": "turn", "job_key": "j",
            "judge": "x", "protocol": "debate", "task": "t", "question_id": "q", "role": "debater", "speaker": "A", "content": "c"}
    fmt = records.Turn.from_stored(turn, keep=True).extra.format
    assert fmt.truncated_from_words == 212 and list(fmt.stored()) == ["over_word_limit", "truncated_from_words"]
    assert list(records.Turn.from_stored(turn).extra.format.stored()) == ["truncated_from_words", "over_word_limit"]


def test_the_reader_hands_out_every_record_typed(tmp_path):
    run = make_run(tmp_path / "run", n_questions=3)
    with RunReader(run, check_pages=True) as reader:
        stored = {k: list(stored_records(reader, k)) for k in ("decision", "turn")}
        calls = list(stored_calls(reader))
        decisions, turns, typed_calls = list(reader.decisions()), list(reader.turns()), list(reader.calls())
        identity = reader.identity()
        questions = list(reader.question_records())
    assert [d.stored() for d in decisions] == stored["decision"] and decisions
    assert [t.stored() for t in turns] == stored["turn"] and turns
    assert [c.stored() for c in typed_calls] == calls and calls
    assert sum(c.usage.prompt_tokens for c in typed_calls) == sum(c["prompt_tokens"] for c in calls) > 0
    assert identity.judge == "sim:judge-a" and identity.options == {"rounds": 2}
    assert len(questions) == 3 * 3 and all(q.question for q in questions)


def test_a_stored_run_holds_the_typed_records(tmp_path):
    """`read_run` (judge --from, judge --suite, the human study) and `load_decisions` hand out the typed
    records of `rundir.records`, not dicts: their consumers read attributes (issue 35)."""
    from oversight_bench.rundir import load_decisions, read_run

    run = make_run(tmp_path / "run", n_questions=3)
    stored = read_run(run)
    assert stored.decisions and all(type(d) is records.Decision for d in stored.decisions)
    turns = [t for ts in stored.turns.values() for t in ts]
    assert turns and all(type(t) is records.Turn for t in turns)
    assert all([t.seq for t in ts] == sorted(t.seq for t in ts) for ts in stored.turns.values())
    assert [d.stored() for d in load_decisions(run)] == [d.stored() for d in stored.decisions]
    d, job_turns = next((d, ts) for d, ts in stored.transcripts() if d.protocol == "debate")
    assert stored.job(d).key == d.job_key and [t.content for t in job_turns] == \
        [t.content for t in stored.turns[(d.job_key, d.judge)]] and job_turns


def test_the_analyses_read_typed_rows_not_dicts(tmp_path):
    """`analysis.load` (report, leaderboard, elo, stance) hands out one typed row per decision
    (`analysis.rows.DecisionRow`, built from `records.Decision`), the typed `records.Turn` and a typed
    row per call: no record in a loaded run is a dict, and each row keeps its stored record whole."""
    from dataclasses import FrozenInstanceError

    from oversight_bench.analysis.load import load_runs
    from oversight_bench.analysis.rows import CallRow, DecisionRow

    run = make_run(tmp_path / "run", n_questions=3)
    (loaded,) = load_runs([run], with_turns=True)
    with RunReader(run, check_pages=True) as reader:
        stored = list(stored_records(reader, "decision"))
    assert loaded.decisions and all(type(d) is DecisionRow for d in loaded.decisions)
    assert [d.record.stored() for d in loaded.decisions] == stored
    assert all(type(d.record) is records.Decision and d.run_dir == str(run) for d in loaded.decisions)
    turns = [t for ts in loaded.turns.values() for t in ts]
    assert turns and all(type(t) is records.Turn for t in turns)
    assert loaded.calls and all(type(c) is CallRow for c in loaded.calls)
    held = [loaded.decisions, turns, loaded.calls, *(vars(d).values() for d in loaded.decisions)]
    assert not any(isinstance(x, dict) and "job_key" in x for xs in held for x in xs)
    with pytest.raises(FrozenInstanceError):  # a row sits in many groups: one group's change must reach no other
        loaded.decisions[0].judge = "other"


def test_a_decision_row_derives_what_the_record_leaves_out():
    """The one place the analyses' derived fields are made (`DecisionRow.of`): open-role fields lifted
    from `extra` or derived, `correct` from the answer, the task type, the debiased judge's label."""
    from oversight_bench.analysis.rows import DecisionRow
    from oversight_bench.rundir.records import Decision

    base = {"kind": "decision", "job_key": "k", "judge": "sim:j", "protocol": "open_consultancy", "task": "t",
            "question_id": "q", "answer": 2, "correct_index": 1, "plugin_field": "x"}
    row = DecisionRow.of(Decision.from_stored({**base, "extra": {"agent_choice": 2, "unjudged": True}}),
                         config={"judge": "sim:j", "judge_debias": True}, run_dir="r", task_types={("t", "q"): "extractive"})
    assert (row.correct, row.agent_choice, row.protagonist_correct, row.win) == (False, 2, False, True)
    assert (row.task_type, row.unjudged, row.judge, row.judge_model, row.judge_debias) == \
        ("extractive", True, "sim:j (debiased)", "sim:j", True)
    assert row.record.model_extra == {"plugin_field": "x"} and row.extra.agent_choice == 2
    bare = DecisionRow.of(Decision.from_stored({**base, "answer": None, "correct": True, "judge_tool": "lengths"}))
    assert (bare.correct, bare.win, bare.task_type, bare.unjudged, bare.judge_tool) == (None, None, "unknown", False, "lengths")


def test_the_run_identity_is_typed_and_gives_back_its_config(tmp_path):
    """`identity()` is config.json typed (`records.RunIdentity`; `stored()`: the dict as stored); its
    `deviations`, which the inspect export and the viewer list, must be a list: anything else is a
    damaged config, refused in one line where it is read."""
    from oversight_bench.errors import BenchError

    run = tmp_path / "r"
    make_run(run, n_questions=1)
    with RunReader(run) as reader:
        identity = reader.identity()
        assert identity.stored() == json.loads((run / "config.json").read_text())
        assert identity.judge == "sim:judge-a" and identity.options == {"rounds": 2} and identity.deviations is None
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "deviations": "limit 2"}))
    with RunReader(run) as reader, pytest.raises(BenchError, match=r"config.json is damaged \(field deviations holds "
                                                                   r"str 'limit 2'; expected a list or null\)"):
        reader.identity()


def test_the_column_checks_are_the_sql_columns_typed_as_the_records_type_them():
    """`schema.COLUMNS` (each column's SQLite types, checked in one scan where a store is opened)
    names exactly the columns the store's SQL creates (`format.SCHEMA`), in its order, and each column
    a record model names allows what the model's type does: a column added to the SQL, or a field's
    type changed in a model, cannot be missed here."""
    import sqlite3
    import typing

    from oversight_bench.rundir.format import SCHEMA
    from oversight_bench.rundir.rows import RECORD_NAME_FIELDS

    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    expected = {records.Text: ("text",), records.Whole: ("integer",), records.Count: ("count",),
                records.Number: ("real", "integer")}
    models = {"records": records.JobFields, "calls": records.Call, "questions": None}
    for table, model in models.items():
        sql = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if not (table == "records" and r[1] == "id")]
        assert list(schema.COLUMNS[table]) == sql, table
        hints = typing.get_type_hints(model, include_extras=True) if model else {}
        for column, allowed in schema.COLUMNS[table].items():
            if column not in (model.model_fields if model else {}) or column == "kind":
                continue
            hint = hints[column]
            args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, type(int | None)) else ()
            base = next((a for a in args if a is not type(None)), hint)
            want = ("text",) if isinstance(base, type) and issubclass(base, records._Record) else expected[base]
            if table == "records" and column in RECORD_NAME_FIELDS:
                want = ("name",)  # non-empty text: what grouping and labels need
            assert allowed == want + (("null",) if type(None) in args else ()), f"{table}.{column}: {allowed} vs {hint}"
