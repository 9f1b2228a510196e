"""Task packs carry their data: a task YAML names files relative to itself (a pack's package data),
the data directory still wins where it holds a file of that name, and a loader that finds nothing
names the files and every place it looked. examples/task_pack's `elements` is YAML and CSV only."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, cli_subprocess
from oversight_bench.errors import BenchError
from oversight_bench.yaml_task import load_yaml_dir

PACK = REPO / "examples" / "task_pack"
FILES = ("elements.yaml", "elements.csv")


@pytest.fixture
def task_folder(tmp_path) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir()
    for name in FILES:
        shutil.copy(PACK / "obench_capitals" / name, folder / name)
    return folder


def elements(folder: Path):
    (task,) = [t for t in load_yaml_dir(folder) if t.name == "elements"]
    return task


def test_a_task_reads_the_csv_next_to_its_yaml_without_a_data_dir(task_folder):
    res = elements(task_folder).load(None, limit=12, seed=0)
    assert len(res.questions) == 12
    gold = next(q for q in res.questions if q.id == "Gold")
    assert gold.question == "What is the chemical symbol of Gold?" and gold.correct == "Au"
    assert gold.incorrect in ("Ag", "Go", "Gd")
    assert list(res.files) == ["task:elements.csv"]  # named by the pack, not by where it is installed


def test_the_data_dir_wins_where_it_names_the_file(task_folder, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "elements.csv").write_text("element,symbol,others\nNeon,Ne,N|No\n")
    res = elements(task_folder).load(data, limit=12, seed=0)
    assert [q.id for q in res.questions] == ["Neon"]
    assert list(res.files) == ["elements.csv"]
    other = tmp_path / "other"  # a data dir without the file: the pack's own
    other.mkdir()
    assert len(elements(task_folder).load(other, limit=12, seed=0).questions) == 12


def test_a_missing_file_names_it_and_every_place_looked(task_folder, tmp_path):
    (task_folder / "elements.csv").unlink()
    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(BenchError) as err:
        elements(task_folder).load(data, limit=2)
    msg = str(err.value)
    assert "elements.csv" in msg and f"the data directory {data}" in msg and f"the task's folder {task_folder}" in msg


def test_an_installed_pack_runs_its_csv_task(tmp_path):
    """The pack installed (non-editable, into a private folder) runs `elements` with no data dir."""
    source, target = tmp_path / "src", tmp_path / "site"
    shutil.copytree(PACK, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True, capture_output=True, timeout=300)
    assert (target / "obench_capitals" / "elements.csv").is_file()  # shipped as package data
    env = {"PYTHONPATH": str(target), "OVERSIGHT_BENCH_DATA": str(tmp_path / "empty")}
    (tmp_path / "empty").mkdir()
    listing = cli_subprocess("list", "tasks", env=env)
    assert listing.returncode == 0 and "elements" in listing.stdout, listing.stderr
    out = tmp_path / "run"
    res = cli_subprocess("run", "--tasks", "elements", "--protocols", "qa_without_article", "--judge", "scripted:default",
                         "--agent", "scripted:default", "--limit", "3", "--answer-order", "random", "--quiet",
                         "--output", str(out), env=env)
    assert res.returncode == 0, res.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["task_types"] == {"elements": "closed"}
