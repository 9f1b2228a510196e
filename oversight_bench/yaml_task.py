"""A task declared in YAML: the rows a loader gives made binary questions, and seeded sampling.

A loader gives rows; `fields` says which row keys hold the question, the answers and the article;
`binary` says how to make the two options (`task_rows.convert`). Sampling shuffles every
convertible row (sorted by id first, so file order and machine do not matter) with a seed made of
the task's and the run's seeds and takes the first `limit`: the sample of n is a prefix of the
sample of n + k, which the runner relies on for few-shot pools.

The file's schema, its `include:` chain and the hash a run stores of it are `task_schema`'s.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError
from oversight_bench.locations import cache_root
from oversight_bench.questions import LoadResult, Question
from oversight_bench.sources import LoadContext, Records, file_fingerprints, track_reads
from oversight_bench.task_rows import REFERS, Candidate, convert
from oversight_bench.task_schema import Fields, TaskConfig, config_hash, parse_config

SOURCE_ENV = "OVERSIGHT_BENCH_SOURCE"


@dataclass
class Pool:
    candidates: list[Candidate]
    skipped: Counter
    notes: list[str]
    source: str
    #: the data files read for the pool (`sources.file_fingerprints`)
    files: dict[str, str] = field(default_factory=dict)
    #: the loader's counts and case (`Records.facts`), for the task's `substitution` text
    facts: dict[str, Any] = field(default_factory=dict)


class YamlTask:
    """A Task (see oversight_bench.tasks) built from a TaskConfig."""

    def __init__(self, config: TaskConfig, path: Path | None = None):
        self.config = config
        self.path = path
        self.name = config.name
        self.task_type = config.task_type
        self.sample_size = config.sample_size
        self.description = config.description
        self.needs_images = config.needs_images if config.needs_images is not None else config.task_type == "multimodal"
        #: the paper task this one is or stands for, and the paper's own tasks' place in its list
        self.paper_task = config.paper.task if config.paper else None
        self.paper_order = config.paper.order if config.paper else None
        self.in_default_run = config.in_default_run
        self._pools: dict[tuple, Pool] = {}

    def __repr__(self) -> str:
        return f"YamlTask({self.name!r}, {self.task_type})"

    @property
    def fingerprint(self) -> dict[str, Any]:
        """What a run stores to tell, on resume, that the task is unchanged."""
        return {"version": self.config.version, "sha256": config_hash(self.config)}

    def choose_source(self, data_dir: Path | None) -> str:
        """local when the data dir has the files, else the generator, else the hub."""
        src = self.config.source
        forced = os.environ.get(SOURCE_ENV)
        if forced:
            if forced not in ("local", "hub", "generator") or getattr(src, forced) is None:
                have = [k for k in ("local", "hub", "generator") if getattr(src, k) is not None]
                raise BenchError(f"{SOURCE_ENV}={forced!r} but task {self.name} has sources: {', '.join(have)}")
            return forced
        ctx = LoadContext(self.name, "local", data_dir, self.task_dir)
        if src.local is not None and ctx.bases():
            if ctx.glob(src.local.files, src.local.exclude):
                return "local"
        if src.generator is not None:
            return "generator"
        if src.hub is not None:
            return "hub"
        raise BenchError(f"task {self.name}: its local files {', '.join(src.local.files)} were not found in {ctx.looked_in()}")

    @property
    def task_dir(self) -> Path | None:
        """The folder of the task's YAML: its file names are looked up there after the data directory."""
        return self.path.parent.resolve() if self.path is not None else None

    def local_hint(self, data_dir: Path | None) -> str:
        local = self.config.source.local
        if local is None:
            return "(this task has no local source)"
        base = str(data_dir) if data_dir else "<data dir>"
        own = f" (or {self.task_dir}/...)" if self.task_dir is not None else ""
        return ", ".join(f"{base}/{p}" for p in local.files) + own

    def _pool(self, data_dir: Path | None) -> Pool:
        source = self.choose_source(data_dir)
        key = (str(data_dir.resolve()) if data_dir else None, source, str(cache_root()))
        if key in self._pools:
            return self._pools[key]
        ctx = LoadContext(self.name, source, data_dir, self.task_dir)
        fields = self.config.fields
        with track_reads() as read:
            if source == "hub":
                from oversight_bench.hub import hub_records

                hub = self.config.source.hub
                records = hub_records(self, data_dir)
                read_names = {f"hub:{hub.path}": f"{hub.name}:{hub.split}"}
                if hub.fields:
                    fields = Fields.model_validate({**fields.model_dump(), **hub.fields})
            else:
                from oversight_bench.registry import get_registry

                try:
                    loader = get_registry().get("loaders", self.config.loader)
                except BenchError as exc:
                    raise BenchError(f"{self.path or self.name}: field 'loader': {exc}") from None
                records = loader(self.config, ctx)
                read_names = {}
        pool = self._convert(records, fields, source)
        pool.files = {**file_fingerprints(read, data_dir, self.task_dir), **read_names}
        self._pools[key] = pool
        return pool

    def _convert(self, records: Records, fields: Fields, source: str) -> Pool:
        skipped = Counter(records.skipped)
        by_id: dict[str, Candidate] = {}
        for row in records.rows:
            cand = convert(row, self.config, fields)
            if isinstance(cand, str):
                skipped[cand] += 1
            elif cand.id in by_id:
                skipped["duplicate_id"] += 1
            else:
                by_id[cand.id] = cand
        cands = [by_id[k] for k in sorted(by_id)]
        facts = dict(records.facts)
        if self.config.binary.drop_references:
            facts["wrong_choices_dropped"] = sum(c.dropped_refs for c in cands)
        return Pool(cands, skipped, list(records.notes), source, facts=facts)

    def reference_rule(self, pool: Pool) -> str | None:
        """The declaration of `binary.drop_references` with its counts: the paper converts a
        multiple-choice question to the correct choice and a random other one (App. F) and says
        nothing of choices that refer to the others, so dropping them is this benchmark's choice."""
        if not self.config.binary.drop_references:
            return None
        k, m = pool.skipped.get(REFERS, 0), pool.facts.get("wrong_choices_dropped", 0)
        total = len(pool.candidates) + k
        return (f"{k} of {total} questions dropped because the correct choice refers to other choices (all/none of "
                f"the above, \"both A and B\", \"B and C only\"...), and {m} wrong choices that do never drawn "
                f"(binary.drop_references; the paper's binary conversion does not say)")

    def substitution(self, pool: Pool) -> str | None:
        """The YAML's `substitution` for the data this load used, its counts filled in; None when
        the data is the paper's. The text sits in the task file, next to the source it describes."""
        text = self.config.substitution
        if isinstance(text, dict):
            case = pool.facts.get("case", pool.source)
            text = text[case] if case in text else text.get("default")
        if not text:
            return None
        values = {"n": len(pool.candidates), "source": pool.source, **pool.facts}
        try:
            return " ".join(text.split()).format_map(values)
        except (KeyError, IndexError, ValueError) as exc:
            raise BenchError(f"{self.path or self.name}: field 'substitution': cannot fill in {exc} "
                             f"(known: {', '.join(sorted(values))})") from None

    def available(self, data_dir: Path | None) -> int:
        """How many convertible questions the source holds."""
        return len(self._pool(data_dir).candidates)

    def load(self, data_dir: Path | None, limit: int | None = None, seed: int = 0) -> LoadResult:
        pool = self._pool(data_dir)
        n = self.sample_size if limit is None else limit
        mix = f"{self.name}:{self.config.seed}:{seed}"
        order = list(pool.candidates)
        random.Random(mix).shuffle(order)
        questions = []
        for c in order[:n]:
            incorrect = random.Random(f"{mix}:{c.id}").choice(c.incorrects)
            meta = {**self.config.meta, **c.meta, "source": pool.source}
            questions.append(
                Question(id=c.id, task=self.name, task_type=self.task_type, question=c.question, correct=c.correct,
                         incorrect=incorrect, article=c.article, images=c.images, meta=meta)
            )
        notes = list(pool.notes)
        if len(questions) < n:
            notes.append(f"only {len(questions)} of {n} requested questions available")
        declared = [d for d in (self.substitution(pool), self.reference_rule(pool)) if d]
        return LoadResult(questions, Counter(pool.skipped), notes, files=dict(pool.files), deviations=declared)


def load_yaml_dir(directory: Path) -> list[YamlTask]:
    """Every `*.yaml` task in a folder, sorted by file name (`_*.yaml`: include-only bases)."""
    return [YamlTask(parse_config(p), p) for p in sorted(Path(directory).glob("*.yaml")) if not p.name.startswith("_")]
