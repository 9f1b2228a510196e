"""lm-eval's multiple-choice tasks in, our tasks out.

In (`loader: lm_eval`, or the shorthand `lm_eval: NAME` in a task YAML): the lm-eval task YAML
named `options.task` in the folder `options.include_path` (relative to our YAML; default: its own
folder) is read by lm-eval itself (`include:`, `!function`, Jinja `doc_to_*` all as lm-eval reads
them); its docs become rows {id, question, choices, answer}: `doc_to_text` (a "Question: ... Answer:"
wrapper taken off), `doc_to_choice` and `doc_to_target`. The task's `binary: {mode: choices}` then
keeps the correct choice and one other drawn at random (seeded per question): the paper's conversion
of multiple-choice tasks to two answers. Local `data_files` are read relative to the lm-eval YAML
(lm-eval itself reads them relative to the working folder); no hub.

Out (`oversight-bench export-task NAME --lm-eval DIR`): a task's questions in the QA-without-article
form (the question, its two answers in the order shown to the judge) as DIR/NAME.csv and an lm-eval
multiple-choice YAML DIR/NAME.yaml over it, which `lm_eval --include_path DIR --tasks NAME` runs.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from oversight_bench.api import BenchError, LoadContext, Records, note_read

_WRAPPER = re.compile(r"^\s*(?:Question|Q)\s*:\s*(?P<q>.*?)\s*(?:\n\s*)?(?:Answer|A)\s*:\s*$", re.S)


def plain_question(text: str) -> str:
    """The question of a `doc_to_text`: a "Question: ... Answer:" wrapper (lm-eval's usual form) off."""
    m = _WRAPPER.match(text)
    return m.group("q") if m else text.strip()


def find_yaml(name: str, folder: Path) -> Path:
    """The lm-eval YAML in `folder` whose `task:` is `name`."""
    from lm_eval.tasks._yaml_loader import load_yaml

    seen = []
    for path in sorted(folder.rglob("*.yaml")):
        try:
            cfg = load_yaml(path, resolve_func=False, recursive=False)
        except Exception:  # noqa: BLE001 - not an lm-eval task file; say which were looked at
            continue
        if cfg.get("task") == name:
            return path
        if isinstance(cfg.get("task"), str):
            seen.append(cfg["task"])
    raise BenchError(f"no lm-eval task {name!r} in {folder} (its YAML files define: {', '.join(seen) or 'none'})")


def _absolute_data_files(cfg: dict[str, Any], folder: Path) -> None:
    kwargs = cfg.get("dataset_kwargs") or {}
    files = kwargs.get("data_files")
    if files is None:
        if cfg.get("dataset_path") in ("csv", "json", "parquet", "text"):
            raise BenchError(f"lm-eval task {cfg.get('task')}: dataset_path {cfg['dataset_path']} with no data_files")
        raise BenchError(f"lm-eval task {cfg.get('task')}: only local data files are read (dataset_kwargs.data_files), "
                         f"not the hub dataset {cfg.get('dataset_path')!r}")

    def fix(p: str) -> str:
        path = Path(p)
        full = path if path.is_absolute() else folder / path
        if not full.exists():
            raise BenchError(f"lm-eval task {cfg.get('task')}: data file {p} not found in {folder}")
        return str(full.resolve())

    if isinstance(files, dict):
        kwargs["data_files"] = {k: [fix(x) for x in v] if isinstance(v, list) else fix(v) for k, v in files.items()}
    else:
        kwargs["data_files"] = [fix(x) for x in files] if isinstance(files, list) else fix(files)


def lm_eval_rows(name: str, folder: Path) -> tuple[list[dict[str, Any]], Path]:
    """Rows {id, question, choices, answer} of lm-eval task `name` in `folder`, and its YAML."""
    try:
        from lm_eval.api.task import ConfigurableTask
        from lm_eval.tasks._yaml_loader import load_yaml
    except ImportError as exc:
        raise BenchError(f"lm-eval tasks need lm-eval installed (pip install 'oversight-bench[lm-eval]'): {exc}") from None
    path = find_yaml(name, folder)
    cfg = load_yaml(path)
    if cfg.get("output_type", "generate_until") != "multiple_choice":
        raise BenchError(f"lm-eval task {name} ({path}) is {cfg.get('output_type')!r}; expected output_type: multiple_choice")
    _absolute_data_files(cfg, path.parent)
    task = ConfigurableTask(config=cfg)
    docs = (task.test_docs() if task.has_test_docs() else task.validation_docs() if task.has_validation_docs()
            else task.training_docs())
    rows = []
    for i, doc in enumerate(docs):
        choices = [str(c) for c in task.doc_to_choice(doc)]
        target = task.doc_to_target(doc)
        answer = target if isinstance(target, int) else choices.index(str(target)) if str(target) in choices else None
        if answer is None and isinstance(target, str) and target.strip().isdigit():
            answer = int(target)
        rows.append({"id": str(doc.get("id", i)) if isinstance(doc, dict) else str(i),
                     "question": plain_question(str(task.doc_to_text(doc))), "choices": choices, "answer": answer})
    return rows, path


def load(cfg, ctx: LoadContext) -> Records:
    name = cfg.options.get("task")
    if not name:
        raise BenchError(f"task {cfg.name}: the lm_eval loader needs options.task (the lm-eval task's name)")
    include = Path(str(cfg.options.get("include_path", ".")))
    folder = include if include.is_absolute() else (ctx.task_dir or Path.cwd()) / include
    rows, path = lm_eval_rows(str(name), folder)
    note_read(path)  # the run's data fingerprint holds the lm-eval YAML (lm-eval reads its data files itself)
    return Records(rows, facts={"lm_eval_task": str(name), "lm_eval_yaml": str(path)})


# -- out ------------------------------------------------------------------------------------------------

EXPORT_TEXT = "Question: {{question}}\nAnswer:"


def _export_source(name: str) -> str:
    return f"oversight-bench export-task {name}"


def _refuse_foreign(folder: Path, spec: Path, data: Path, name: str) -> None:
    """An lm-eval folder holds other tasks, so it may be non-empty; but NAME.yaml and NAME.csv are
    overwritten only when they are an earlier export of this task (the YAML says so and names the
    CSV): a user's own task file of the same name is refused in one line, before anything is written."""
    import yaml

    if folder.exists() and not folder.is_dir():
        raise BenchError(f"export-task: --lm-eval {folder} is not a folder; expected a new folder or an lm-eval task folder")
    for path in (spec, data):
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise BenchError(f"export-task: {path} is a link or not a plain file; expected none there, or an earlier "
                             f"export of task {name} (remove it)")
    if not (spec.exists() or data.exists()):
        return
    try:
        earlier = yaml.safe_load(spec.read_text(encoding="utf-8")) if spec.exists() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        earlier = None
    def field(*keys: str) -> Any:
        value = earlier
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    ours = (field("metadata", "source") == _export_source(name)
            and field("dataset_kwargs", "data_files", "test") == str(data.resolve()))
    if not ours:
        taken = " and ".join(p.name for p in (spec, data) if p.exists())
        raise BenchError(f"export-task: {folder} already holds {taken}, which no earlier 'export-task {name}' wrote; "
                         f"expected a folder without them (move them, or export into another folder)")


def export_task(name: str, questions: list, folder: Path) -> tuple[Path, Path]:
    """`questions` (one task's, in the QA-without-article form) as DIR/NAME.csv and an lm-eval
    multiple-choice YAML over it: the two answers as displayed to the judge, the correct one's index."""
    import yaml

    data, spec = folder / f"{name}.csv", folder / f"{name}.yaml"
    _refuse_foreign(folder, spec, data, name)
    folder.mkdir(parents=True, exist_ok=True)
    with data.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "answer_1", "answer_2", "label"])
        for q, order in questions:
            answers = q.answers(order)
            w.writerow([q.id, q.question, answers[0], answers[1], answers.index(q.correct)])
    config = {
        "task": name,
        "dataset_path": "csv",
        "dataset_kwargs": {"data_files": {"test": str(data.resolve())}},  # lm-eval reads it from any folder
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": EXPORT_TEXT,
        "doc_to_choice": "{{[answer_1, answer_2]}}",
        "doc_to_target": "label",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1.0, "source": _export_source(name)},
    }
    spec.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return spec, data
