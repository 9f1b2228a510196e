"""A stored run read once for re-judging (`judge --from`, `judge --suite`, the human study): its
config, questions, decisions and turns, with the one rule saying which of its transcripts another
judge may decide (`StoredRun.rejudgeable`). It holds the typed records of `rundir.records`
(`Decision`, `Turn`), read through `RunReader.decisions()` and `.turns()`: consumers read attributes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from oversight_bench.errors import BenchError, validation_error
from oversight_bench.protocol import Job, Turn
from oversight_bench.protocol_options import CommonOptions, all_options_model, stored_options
from oversight_bench.questions import Question
from oversight_bench.rundir import legacy
from oversight_bench.rundir.jobs import job_of_record
from oversight_bench.rundir.reader import RunReader
from oversight_bench.rundir.records import Decision, Turn as TurnRecord


@dataclass
class StoredRun:
    """Everything of a run directory a re-judging reads, read in one pass (`read_run`)."""

    dir: Path
    config: dict[str, Any]
    questions: dict[tuple[str, str], Question]
    #: every judge's decision records, in the order they were stored
    decisions: list[Decision]
    #: (job_key, judge) -> that job's turn records, in order
    turns: dict[tuple[str, str], list[TurnRecord]] = field(default_factory=dict)
    #: the directory as the user named it (a re-judging records it as its `source`)
    given: str = ""

    def options(self, overrides: dict[str, Any] | None = None, protocols: list[str] | None = None) -> CommonOptions:
        """The options the transcripts were made with, with `overrides` (a re-judging's) on top, as
        the options of the run's protocols (`protocols`: of these, e.g. the one `judge --as` names)."""
        names = [*(self.config.get("protocols") or []), *(protocols or [])]
        try:
            return stored_options(names, self.config.get("options"), overrides)
        except ValidationError as exc:
            raise validation_error(exc, "judge options", noun="option", model=all_options_model()) from None

    def rejudgeable(self, protocol: str) -> bool:
        """Whether another judge may decide this run's `protocol` transcripts: decided by how they were
        made (`Protocol.can_rejudge` of the stored options), never by the options of the new judge."""
        from oversight_bench.registry import get_registry

        try:
            return bool(get_registry().get("protocols", protocol).can_rejudge(self.options()))
        except BenchError:
            return False

    def transcripts(self) -> list[tuple[Decision, list[Turn]]]:
        """Each transcript once, as (decision, turns in order, as protocols take them); one judged by
        several judges is taken with its first judge's decision."""
        first: dict[str, str] = {}
        out = []
        for d in self.decisions:
            if first.setdefault(d.job_key, d.judge) == d.judge:
                out.append((d, [Turn.from_dict(legacy.turn_fields(t.stored())) for t in self.turns.get((d.job_key, d.judge), [])]))
        return out

    def job(self, d: Decision) -> Job:
        """The Job of one of its decisions (`jobs.job_of_record`)."""
        q = self.questions.get((d.task, d.question_id))
        if q is None:
            raise BenchError(f"{self.dir}: decision {d.job_key} refers to a question missing from the store")
        return job_of_record(d, q)

    def argument_turns(self) -> dict[str, list[TurnRecord]]:
        """The arguing turns by room (job_key), as the quality figures (`analysis.quality`) take them.
        A re-judge stores the same turns under the same keys, so the source's serve both sides."""
        from oversight_bench.model_text import is_argument

        out: dict[str, list[TurnRecord]] = {}
        for (key, _), turns in self.turns.items():
            out.setdefault(key, []).extend(t for t in turns if is_argument(t))
        return out


def read_run(directory: str | Path) -> StoredRun:
    """Read a run directory once: config, questions, decisions and turns."""
    with RunReader(directory, check_pages=True) as reader:
        config = reader.identity().stored()
        questions = reader.questions()
        decisions = list(reader.decisions())
        turns: dict[tuple[str, str], list[TurnRecord]] = defaultdict(list)
        for t in reader.turns():
            turns[(t.job_key, t.judge)].append(t)
    for ts in turns.values():
        ts.sort(key=lambda t: t.seq)
    return StoredRun(Path(directory), config, questions, decisions, dict(turns), given=str(directory))


def load_decisions(directory: str | Path) -> list[Decision]:
    """A run's decision records (every judge's), in the order they were stored."""
    with RunReader(directory, check_pages=True) as reader:
        return list(reader.decisions())
