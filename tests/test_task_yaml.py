"""Task YAML `include:` (one file extends another) and `version`: stored with a run, and a resumed
run refuses a task whose YAML changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oversight_bench.errors import BenchError
from oversight_bench.tasks import load_yaml_tasks

from helpers import cli, records

BASE = """
task_type: closed
loader: table
source:
  local: {files: [tiny/*.jsonl]}
fields: {question: q, correct: good, incorrect: [bad1, bad2]}
binary: {mode: pair}
sample_size: 4
"""


def _data(tmp_path: Path) -> Path:
    d = tmp_path / "data" / "tiny"
    d.mkdir(parents=True)
    rows = [{"q": f"What is {i} plus one?", "good": str(i + 1), "bad1": str(i + 2), "bad2": str(i)} for i in range(8)]
    (d / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path / "data"


def test_include_merges_and_own_keys_win(tmp_path):
    tasks = tmp_path / "tasks"
    (tasks / "bases").mkdir(parents=True)
    (tasks / "bases" / "_tiny_base.yaml").write_text(BASE)
    (tasks / "tiny.yaml").write_text("include: bases/_tiny_base.yaml\nname: tiny\n")
    (tasks / "tiny_small.yaml").write_text("include: tiny.yaml\nname: tiny_small\nsample_size: 2\n"
                                           "source: {local: {exclude: [tiny/none.jsonl]}}\nversion: 3\n")
    loaded = {t.name: t for t in load_yaml_tasks(tasks)}
    assert set(loaded) == {"tiny", "tiny_small"}  # bases/ is not globbed, `_*.yaml` would be skipped
    small = loaded["tiny_small"].config
    assert small.sample_size == 2 and small.version == 3
    assert small.source.local.files == ["tiny/*.jsonl"] and small.source.local.exclude == ["tiny/none.jsonl"]  # merged
    assert loaded["tiny"].config.sample_size == 4 and loaded["tiny"].config.version == 1
    assert len(loaded["tiny_small"].load(_data(tmp_path), None, 0).questions) == 2


def test_underscore_files_are_include_only(tmp_path):
    (tmp_path / "_base.yaml").write_text(BASE)  # no name: not a valid task on its own
    (tmp_path / "tiny.yaml").write_text("include: _base.yaml\nname: tiny\n")
    assert [t.name for t in load_yaml_tasks(tmp_path)] == ["tiny"]


@pytest.mark.parametrize("files, needle", [
    ({"a.yaml": "include: b.yaml\nname: a\n", "b.yaml": "include: a.yaml\n"}, "include cycle: a.yaml -> b.yaml -> a.yaml"),
    ({"a.yaml": "include: a.yaml\nname: a\n"}, "include cycle: a.yaml -> a.yaml"),
    ({"a.yaml": "include: missing.yaml\nname: a\n"}, "'include': missing.yaml not found"),
    ({"a.yaml": "include: [x.yaml]\nname: a\n"}, "'include': expected the path of another task YAML"),
])
def test_include_errors_are_one_line(tmp_path, files, needle):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(BenchError) as exc:
        load_yaml_tasks(tmp_path / "a.yaml")
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def _run(tmp_path: Path, tasks: Path, out: Path):
    return cli("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "tiny",
               "--protocols", "qa_without_article", "--include-path", str(tasks), "--data-dir", str(tmp_path / "data"),
               "--output", str(out), "--quiet")


def test_version_is_stored_and_a_changed_task_refuses_resume(tmp_path):
    _data(tmp_path)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "tiny.yaml").write_text("name: tiny\nversion: 2\n" + BASE)
    out = tmp_path / "run"
    res = _run(tmp_path, tasks, out)
    assert res.exit_code == 0, res.output
    stored = json.loads((out / "config.json").read_text())["task_versions"]["tiny"]
    assert stored["version"] == 2 and len(stored["sha256"]) == 16
    # the same YAML, reformatted and commented: the resume goes ahead
    (tasks / "tiny.yaml").write_text("# a comment\nversion: 2\nname: tiny\n" + BASE.replace("sample_size: 4", "sample_size:   4"))
    res = _run(tmp_path, tasks, out)
    assert res.exit_code == 0 and "8 already stored" in res.output  # 4 questions x both answer orders
    # a changed question source: refused in one line, exit 2, nothing written
    before = records(out)
    (tasks / "tiny.yaml").write_text("name: tiny\nversion: 2\n" + BASE.replace("incorrect: [bad1, bad2]", "incorrect: [bad1]"))
    res = _run(tmp_path, tasks, out)
    assert res.exit_code == 2
    assert "task tiny changed since" in res.output and "YAML hash" in res.output
    assert records(out) == before
    # a bumped version alone is a change too
    (tasks / "tiny.yaml").write_text("name: tiny\nversion: 3\n" + BASE)
    res = _run(tmp_path, tasks, out)
    assert res.exit_code == 2 and "version 2 -> 3" in res.output
