"""lm-eval tasks in and out, on a local CSV (no hub): an lm-eval multiple-choice task YAML becomes a
binary oversight task (the correct choice and one other, seeded), and `export-task NAME --lm-eval DIR`
writes a task that `lm_eval --include_path DIR --tasks NAME` runs and that reads back the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import cli_subprocess

pytest.importorskip("lm_eval")

from oversight_bench.errors import BenchError  # noqa: E402
from oversight_bench.yaml_task import load_yaml_dir  # noqa: E402

CSV = """id,question,a,b,c,label
1,What is the capital of France?,Paris,Rome,Berlin,0
2,What is the capital of Italy?,Madrid,Rome,Paris,1
3,What is the capital of Spain?,Lisbon,Berlin,Madrid,2
4,What is the capital of Peru?,Lima,Quito,Bogota,0
"""
LM_EVAL_YAML = """task: capq
dataset_path: csv
dataset_kwargs:
  data_files:
    test: capq.csv
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{question}}\\nAnswer:"
doc_to_choice: "{{[a, b, c]}}"
doc_to_target: label
metric_list:
  - metric: acc
"""
CHOICES = {"1": ("Paris", {"Rome", "Berlin"}), "2": ("Rome", {"Madrid", "Paris"}), "3": ("Madrid", {"Lisbon", "Berlin"}),
           "4": ("Lima", {"Quito", "Bogota"})}


def our_task(folder: Path, include: str, name: str = "capq") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(f"lm_eval: {{task: capq, include_path: {include}}}\nname: {name}\nsample_size: 4\n")
    return folder


@pytest.fixture
def lm_eval_dir(tmp_path) -> Path:
    d = tmp_path / "lme"
    d.mkdir()
    (d / "capq.csv").write_text(CSV)
    (d / "capq.yaml").write_text(LM_EVAL_YAML)
    return d


def load(folder: Path, seed: int = 0):
    (task,) = load_yaml_dir(folder)
    return task, task.load(None, limit=4, seed=seed)


def test_an_lm_eval_multiple_choice_task_becomes_a_binary_task(tmp_path, lm_eval_dir):
    task, res = load(our_task(tmp_path / "tasks", "../lme"))
    assert task.task_type == "closed" and len(res.questions) == 4
    for q in res.questions:
        correct, others = CHOICES[q.id]
        assert q.correct == correct and q.incorrect in others
        assert q.question.startswith("What is the capital of") and "Answer:" not in q.question
    again = load(our_task(tmp_path / "tasks", "../lme"))[1].questions
    assert [(q.id, q.incorrect) for q in again] == [(q.id, q.incorrect) for q in res.questions]  # seeded
    assert any(f.startswith("/") and f.endswith("capq.yaml") for f in res.files)  # the lm-eval YAML is fingerprinted


def test_a_missing_lm_eval_task_or_file_is_one_line(tmp_path, lm_eval_dir):
    (tmp_path / "t1").mkdir()
    (tmp_path / "t1" / "x.yaml").write_text("lm_eval: {task: nope, include_path: ../lme}\n")
    with pytest.raises(BenchError, match="no lm-eval task 'nope' in .*lme .*define: capq"):
        load(tmp_path / "t1")
    (lm_eval_dir / "capq.csv").unlink()
    with pytest.raises(BenchError, match="data file capq.csv not found in .*lme"):
        load(our_task(tmp_path / "t2", "../lme"))


def _export(tmp_path: Path, lm_eval_dir: Path) -> Path:
    """`export-task capq --lm-eval DIR` (in-process): the folder it wrote."""
    from helpers import cli

    out = tmp_path / "exported"
    res = cli("export-task", "capq", "--lm-eval", str(out), "--include-path", str(our_task(tmp_path / "tasks", str(lm_eval_dir))))
    assert res.exit_code == 0, res.stderr
    assert (out / "capq.yaml").is_file() and (out / "capq.csv").is_file()
    return out


def test_export_reads_back_the_same(tmp_path, lm_eval_dir):
    out = _export(tmp_path, lm_eval_dir)
    _, original = load(tmp_path / "tasks")
    _, back = load(our_task(tmp_path / "back", str(out)))
    assert sorted((q.id, q.question, q.correct, q.incorrect) for q in back.questions) == \
        sorted((q.id, q.question, q.correct, q.incorrect) for q in original.questions)  # the same questions and answers


@pytest.mark.integration
def test_export_runs_under_lm_eval(tmp_path, lm_eval_dir):
    """The exported task runs under the real lm-eval harness (its CLI, datasets and dummy model: about a
    minute on 2 busy cores), so it runs in the integration lane; the fast lane checks the export's
    content (test_export_reads_back_the_same)."""
    out = _export(tmp_path, lm_eval_dir)
    run = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--include_path", str(out),
                          "--tasks", "capq", "--output_path", str(tmp_path / "lm_eval_out")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "capq" in run.stdout and "acc" in run.stdout, run.stdout[-2000:]


def test_export_never_overwrites_a_task_file_it_did_not_write(tmp_path, lm_eval_dir):
    """An lm-eval folder holds other tasks: export-task writes beside them, refuses (exit 2, one line,
    nothing written) a NAME.yaml or NAME.csv that no earlier export of NAME wrote, and rewrites its own."""
    from helpers import cli

    tasks = our_task(tmp_path / "tasks", str(lm_eval_dir))
    out = tmp_path / "mine"
    out.mkdir()
    (out / "other.yaml").write_text("task: other\n")
    (out / "capq.yaml").write_text("task: capq  # my own, hand-written\n")
    res = cli("export-task", "capq", "--lm-eval", str(out), "--include-path", str(tasks))
    assert res.exit_code == 2 and "capq.yaml" in res.stderr and "no earlier 'export-task capq'" in res.stderr, res.stderr
    assert (out / "capq.yaml").read_text() == "task: capq  # my own, hand-written\n" and not (out / "capq.csv").exists()
    (out / "capq.yaml").unlink()
    (out / "capq.csv").write_text("my,own\n")
    res = cli("export-task", "capq", "--lm-eval", str(out), "--include-path", str(tasks))
    assert res.exit_code == 2 and "capq.csv" in res.stderr and (out / "capq.csv").read_text() == "my,own\n"
    (out / "capq.csv").unlink()
    for _ in range(2):  # a fresh export beside another task, then its own rewrite
        res = cli("export-task", "capq", "--lm-eval", str(out), "--include-path", str(tasks))
        assert res.exit_code == 0, res.stderr
    assert (out / "other.yaml").read_text() == "task: other\n"


def test_an_include_path_of_lm_eval_yaml_files_gives_their_tasks(tmp_path, lm_eval_dir):
    """`--include-path DIR` where DIR holds lm-eval task files: each multiple-choice one is a task."""
    res = cli_subprocess("list", "tasks", "--include-path", str(lm_eval_dir))
    assert res.returncode == 0, res.stderr
    assert any(line.split()[0] == "capq" for line in res.stdout.splitlines() if line.strip()), res.stdout
    _, loaded = load(lm_eval_dir)
    assert sorted(q.correct for q in loaded.questions) == sorted(c for c, _ in CHOICES.values())
