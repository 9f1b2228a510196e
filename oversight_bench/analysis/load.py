"""Read one or more run directories for the analyses (through the one reader of a run,
`rundir.reader.RunReader`): each decision as a typed `rows.DecisionRow` (built there, in one place, from
`records.Decision`), each turn as the typed `records.Turn`, grouped by job and judge label, each call as
a `rows.CallRow` (its usage, without the request and response).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.analysis.rows import CallRow, DecisionRow, judge_fields
from oversight_bench.errors import BenchError
from oversight_bench.questions import Question
from oversight_bench.rundir.reader import RunReader
from oversight_bench.rundir.names import CONFIG_NAME
from oversight_bench.rundir.records import Turn


@dataclass
class Run:
    """One run directory: its config, decisions (typed rows), turns (typed records) grouped by
    (job_key, judge label), calls (typed rows) and questions. No record in it is a dict."""

    dir: Path
    config: dict[str, Any]
    decisions: list[DecisionRow]
    calls: list[CallRow]
    questions: dict[tuple[str, str], Question]
    turns: dict[tuple[str, str | None], list[Turn]] = field(default_factory=dict)


def load_run(directory: str | Path, *, with_turns: bool = False, with_calls: bool = True) -> Run:
    """Open a run directory read-only; its decisions as rows, its turns (`with_turns`) as records."""
    directory = Path(directory)
    if not directory.is_dir():
        raise BenchError(f"run directory {directory} does not exist; expected a folder written by 'oversight-bench run' or 'import'")
    with RunReader(directory, check_pages=True) as store:
        config = store.identity().stored()  # the run's config.json as stored: what its rows' judges read
        questions = store.questions()
        task_types = {k: q.task_type for k, q in questions.items()}
        decisions = [DecisionRow.of(d, config=config, run_dir=str(directory), task_types=task_types)
                     for d in store.decisions()]
        calls = [CallRow.of(c) for c in store.calls()] if with_calls else []
        turns: dict[tuple[str, str | None], list[Turn]] = {}
        if with_turns:
            for t in store.turns():
                turns.setdefault((t.job_key, judge_fields(t.judge, config)[0]), []).append(t)
    return Run(directory, config, decisions, calls, questions, turns)


def expand_dirs(dirs) -> list[Path]:
    """Run directories, where a folder holding no run but runs one level down (a preset's variants,
    e.g. runs/paper/ablation_rounds/rounds-1, .../rounds-3) stands for those runs."""
    out: list[Path] = []
    for d in map(Path, dirs):
        subs = sorted(p.parent for p in d.glob(f"*/{CONFIG_NAME}")) if d.is_dir() and not (d / CONFIG_NAME).exists() else []
        out.extend(subs or [d])
    return out


def assign_settings(runs: list[Run]) -> None:
    """Give every decision row a `setting`: the protocol options in which its run differs from the other
    runs analysed together (e.g. "rounds=1"), None when they all agree. Ablations then show as
    separate rows and bars instead of being averaged into one. Also `judge_tool` (the judge tool the
    decision's judge had, None: none) and `setting_besides_tool` (the setting but for the tool), which
    pair the arms with and without a tool (`report.judge_tool_rows`)."""
    from oversight_bench.protocol_options import CommonOptions, all_options_model

    # a protocol's own option that a run does not hold (none of its protocols has it) counts as its default
    fields = all_options_model().model_fields
    own = {k: f.default for k, f in fields.items() if k not in CommonOptions.model_fields}
    # cross-play runs have the fixed settings of App. E (one round, best-of-N per player): not an arm
    opts = [own | r.config.get("options") if isinstance(r.config.get("options"), dict) and r.config.get("kind") != "crossplay"
            else None for r in runs]
    keys = [k for k in fields if len({repr(o.get(k)) for o in opts if o is not None}) > 1]
    for run, o in zip(runs, opts):
        label = ", ".join(f"{k}={o.get(k)}" for k in keys) if keys and o is not None else None
        others = [k for k in keys if k != "judge_tool"]
        besides = ", ".join(f"{k}={o.get(k)}" for k in others) if others and o is not None else None
        run_tool = (o or {}).get("judge_tool") or None
        if label is not None or besides is not None or run_tool is not None:  # else every row has these already
            run.decisions = [d.with_(setting=label, setting_besides_tool=besides, judge_tool=d.judge_tool or run_tool)
                             for d in run.decisions]


def load_runs(dirs, **kw) -> list[Run]:
    if not dirs:
        raise BenchError("no run directories given; expected one or more folders written by 'oversight-bench run' or 'import'")
    runs = [load_run(d, **kw) for d in expand_dirs(dirs)]
    assign_settings(runs)
    return runs
