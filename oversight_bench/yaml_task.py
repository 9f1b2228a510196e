"""A task declared in YAML: the schema (pydantic), binary conversion, and seeded sampling.

A loader gives rows; `fields` says which row keys hold the question, the answers and the article;
`binary` says how to make the two options. Sampling shuffles every convertible row (sorted by id
first, so file order and machine do not matter) with a seed made of the task's and the run's
seeds and takes the first `limit`: the sample of n is a prefix of the sample of n + k, which the
runner relies on for few-shot pools.

`include: base.yaml` (a path relative to the including file) makes one file extend another: the
included mapping is merged under the file's own keys (nested mappings merged key by key). Files
whose name starts with `_` in a task folder are include-only bases, not tasks. `version` and a
hash of the resolved YAML are stored with a run, so a resumed run refuses a task that changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from oversight_bench.errors import MAX_COUNT, BenchError, validation_error
from oversight_bench.locations import cache_root
from oversight_bench.paths import check_relative_patterns
from oversight_bench.yamlio import read_yaml_mapping
from oversight_bench.questions import Image, LoadResult, Question
from oversight_bench.sources import LoadContext, Records, file_fingerprints, track_reads

SOURCE_ENV = "OVERSIGHT_BENCH_SOURCE"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HubSource(_Strict):
    """A Hugging Face hub dataset, for machines with hub access."""

    path: str
    name: str | None = None
    split: str = "test"
    fields: dict[str, Any] = Field(default_factory=dict, description="overrides of `fields` for the hub's column names")
    exclude_rows: dict[str, list[Any]] = Field(default_factory=dict, description="drop rows whose column has one of these values")


class LocalSource(_Strict):
    """Files under the data directory (globs, relative to it)."""

    files: list[str]
    exclude: list[str] = Field(default_factory=list)
    format: Literal["auto", "csv", "jsonl", "json", "parquet"] = "auto"


class Source(_Strict):
    local: LocalSource | None = None
    hub: HubSource | None = None
    generator: dict[str, Any] | None = Field(None, description="options of the loader's built-in generator (no data needed)")


class Fields(_Strict):
    """Row keys (or `{key}` templates) for each part of a question."""

    id: str | None = None
    question: str
    article: str | None = None
    correct: str | None = None
    incorrect: str | list[str] | None = None
    choices: str | list[str] | None = None
    answer: str | None = None
    images: str | None = None
    meta: list[str] = Field(default_factory=list)


class Binary(_Strict):
    """How the two options are made.

    pair: `correct` against one of `incorrect` (a key, several keys, or a list; a text is split on
    `separator`), picked at random per question. choices: `choices[answer]` against a random other
    choice (`answer_format` index, letter or text). yes_no: a boolean `answer` becomes `labels`.
    """

    mode: Literal["pair", "choices", "yes_no"]
    answer_format: Literal["index", "letter", "text"] = "index"
    separator: str | None = None
    labels: tuple[str, str] = ("Yes", "No")
    drop_references: bool = Field(False, description="drop a question whose correct choice refers to other choices "
                                  "(all/none of the above, \"both A and B\", \"B and C only\"; `option_refs`), and never "
                                  "draw a wrong choice that does; counted and declared with the task's data")


class PaperTask(_Strict):
    task: str = Field(description="the paper's task this file is (its own name), or reads another way (gpqa_full: gpqa)")
    order: int | None = Field(None, ge=1, description="its place in the paper's task list (App. F); the paper's own tasks only")


class TaskConfig(_Strict):
    """One task file. `lm_eval: NAME` (or `{task: NAME, include_path: DIR}`) is the shorthand for an
    lm-eval multiple-choice task: the `lm_eval` loader reads it, and the file needs no fields of its own
    beyond what it changes (`name`, `task_type`, `sample_size`...)."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    task_type: Literal["extractive", "closed", "multimodal"]
    description: str = ""
    loader: str = "table"
    source: Source
    fields: Fields
    binary: Binary
    options: dict[str, Any] = Field(default_factory=dict, description="loader-specific settings")
    meta: dict[str, Any] = Field(default_factory=dict, description="added to every question's meta")
    sample_size: int = Field(128, ge=1, le=MAX_COUNT)
    seed: int = 0
    needs_images: bool | None = None
    version: int | float | str = Field(1, description="bump when the task's questions change; stored with each run")
    substitution: str | dict[str, str | None] | None = Field(
        None, description="how this task's data differs from the paper's, declared in every run that uses it; "
        "`{n}` (questions available) and the loader's counts are filled in. A mapping picks the text by the "
        "loader's `case`, else by the source (local, hub, generator), else `default`; null: the paper's data")
    paper: PaperTask | None = Field(None, description="the paper task this one is or stands for; null: not in the paper")
    in_default_run: bool = Field(False, description="run when a command names no tasks")

    @model_validator(mode="before")
    @classmethod
    def _lm_eval(cls, data: Any) -> Any:
        """`lm_eval: NAME`: the loader, fields and binary conversion of an lm-eval multiple-choice task
        (the correct choice against one other, drawn at random per question: the paper's conversion)."""
        if not isinstance(data, dict):
            return data
        if isinstance(data.get("task"), str) and "output_type" in data and "name" not in data and "fields" not in data:
            data = {"lm_eval": {"task": data["task"], "include_path": "."}}  # an lm-eval task file itself (--include-path)
        if "lm_eval" not in data:
            return data
        data = dict(data)
        spec = data.pop("lm_eval")
        spec = {"task": spec} if isinstance(spec, str) else spec
        if not isinstance(spec, dict) or not isinstance(spec.get("task"), str):
            raise ValueError("lm_eval: expected an lm-eval task name, or {task: NAME, include_path: DIR}")
        data.setdefault("name", re.sub(r"[^a-z0-9_.-]+", "_", spec["task"].lower()))
        data.setdefault("task_type", "closed")
        data["loader"] = "lm_eval"
        data.setdefault("source", {"generator": {}})
        data["options"] = {**(data.get("options") or {}), **spec}
        data.setdefault("fields", {"id": "id", "question": "question", "choices": "choices", "answer": "answer"})
        data.setdefault("binary", {"mode": "choices", "answer_format": "index"})
        data.setdefault("description", f"lm-eval task {spec['task']}: the correct choice against one other at random")
        return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def resolve_yaml(path: Path, _chain: tuple[Path, ...] = (), _root: Path | None = None) -> dict[str, Any]:
    """The task mapping of `path` with its `include:` chain merged in (the file's own keys win). An
    include follows the rules of `files:`: a relative path without `..`, and (links resolved) inside
    the folder of the file the chain started from, so a task folder reads nothing outside itself."""
    path = Path(path)
    real = path.resolve()
    root = _root or real.parent
    if real in _chain:
        cycle = " -> ".join(p.name for p in (*_chain, real)[list(_chain).index(real):])
        raise BenchError(f"{path}: include cycle: {cycle}")
    data = read_yaml_mapping(path, "task fields (name, task_type, source, fields, binary)", "task config")
    inc = data.pop("include", None)
    if inc is None:
        return data
    if not isinstance(inc, str) or not inc.strip():
        raise BenchError(f"{path}: field 'include': expected the path of another task YAML (relative to this file), got "
                         f"{type(inc).__name__}")
    check_relative_patterns([inc], str(path), "include", base="this file's folder", example="_base.yaml")
    target = path.parent / inc.strip()
    if not target.resolve().is_relative_to(root):
        raise BenchError(f"{path}: field 'include': {inc.strip()!r} leads outside the task folder {root} (through a "
                         f"link); expected a task YAML inside it")
    if not target.is_file():
        raise BenchError(f"{path}: field 'include': {inc.strip()} not found (looked for {target})")
    return _merge(resolve_yaml(target, (*_chain, real), root), data)


def parse_config(path: Path) -> TaskConfig:
    """Read and validate one task YAML; every problem is a one-line BenchError naming file and field."""
    data = resolve_yaml(path)
    try:
        cfg = TaskConfig.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), model=TaskConfig) from None
    if cfg.source.local is None and cfg.source.hub is None and cfg.source.generator is None:
        raise BenchError(f"{path}: field 'source': expected at least one of local, hub, generator")
    if cfg.source.local is not None:
        check_relative_patterns([*cfg.source.local.files, *cfg.source.local.exclude], str(path), "source.local.files")
    return cfg


def config_hash(cfg: TaskConfig) -> str:
    """A hash of the resolved, validated task YAML (defaults filled in, comments and layout ignored).
    `substitution` and `paper` are left out: they word the declaration, not the questions, so changing
    them leaves stored runs resumable (their deviations are recomputed when they resume)."""
    data = cfg.model_dump(mode="json", exclude={"substitution", "paper", "in_default_run"})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


# -- conversion -------------------------------------------------------------------------------
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


def _get(row: dict, spec: str | None) -> Any:
    if spec is None:
        return None
    if "{" in spec:
        return _TEMPLATE.sub(lambda m: str(row.get(m.group(1), "")), spec)
    return row.get(spec)


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _as_list(value: Any, separator: str | None) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str) and value.strip().startswith("[") and separator is None:
        import ast

        try:
            parsed = ast.literal_eval(value)
            if isinstance(parsed, (list, tuple)):
                return list(parsed)
        except (ValueError, SyntaxError):
            pass
    if isinstance(value, str) and separator:
        return value.split(separator)
    return [value]


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    low = str(value).strip().lower()
    return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(low)


@dataclass
class Candidate:
    """A convertible row: the correct answer and every acceptable incorrect one."""

    id: str
    question: str
    correct: str
    incorrects: list[str]
    article: str | None = None
    images: tuple[Image, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    #: wrong choices left out of the draw because they refer to other choices (`binary.drop_references`)
    dropped_refs: int = 0


#: the skip reason of a question whose correct choice refers to other choices (`binary.drop_references`)
REFERS = "answer_refers_to_other_options"


def _options(row: dict, f: Fields, b: Binary) -> tuple[str | None, list, str | None]:
    """(correct, incorrect candidates, skip reason)."""
    if b.mode == "yes_no":
        value = _bool(_get(row, f.answer))
        if value is None:
            return None, [], "missing_answer"
        yes, no = b.labels
        return (yes, [no], None) if value else (no, [yes], None)
    if b.mode == "choices":
        spec = f.choices
        choices = [row.get(k) for k in spec] if isinstance(spec, list) else _as_list(_get(row, spec), b.separator)
        choices = [_text(c) for c in choices]
        raw = _get(row, f.answer)
        if raw is None or str(raw).strip() == "":
            return None, [], "missing_answer"
        idx = None
        text = str(raw).strip()
        if b.answer_format == "index" and text.lstrip("-").isdigit():
            idx = int(text)
        elif b.answer_format == "letter" and len(text) == 1 and text.isalpha():
            idx = ord(text.upper()) - ord("A")
        elif b.answer_format == "text":
            idx = next((i for i, c in enumerate(choices) if c is not None and _norm(c) == _norm(text)), None)
        if idx is None or not 0 <= idx < len(choices) or choices[idx] is None:
            return None, [], "bad_answer_key"
        return choices[idx], [c for i, c in enumerate(choices) if i != idx], None
    correct = _text(_get(row, f.correct))
    spec = f.incorrect
    if isinstance(spec, list):
        incorrects = [row.get(k) for k in spec]
    else:
        incorrects = _as_list(_get(row, spec), b.separator)
    return correct, incorrects, None


def convert(row: dict, cfg: TaskConfig, fields: Fields) -> Candidate | str:
    """A Candidate, or the reason the row cannot become a binary question."""
    question = _text(_get(row, fields.question))
    if question is None:
        return "missing_question"
    correct, incorrects, reason = _options(row, fields, cfg.binary)
    if reason:
        return reason
    if correct is None:
        return "missing_correct_answer"
    dropped = 0
    if cfg.binary.drop_references:
        from oversight_bench.option_refs import refers_to_other_options

        if refers_to_other_options(correct):
            return REFERS
        kept = [i for i in incorrects if not refers_to_other_options(_text(i))]
        dropped, incorrects = len(incorrects) - len(kept), kept
        if not incorrects:
            return "wrong_choices_refer_to_other_options"
    seen, keep = {_norm(correct)}, []
    for inc in incorrects:
        t = _text(inc)
        if t is not None and _norm(t) not in seen:
            seen.add(_norm(t))
            keep.append(t)
    if not keep:
        return "identical_options" if any(_text(i) for i in incorrects) else "missing_incorrect_answer"
    article = None
    if fields.article is not None:
        article = _text(_get(row, fields.article))
        if article is None:
            return "missing_article"
    images: tuple[Image, ...] = ()
    if fields.images is not None:
        images = tuple(row.get(fields.images) or ())
        if not images:
            return "missing_image"
    digest = hashlib.sha1("\x1f".join([question, correct, article or ""]).encode()).hexdigest()[:12]
    ident = (_text(_get({**row, "_hash": digest}, fields.id)) if fields.id else None) or digest
    meta = {k: row[k] for k in fields.meta if k in row and row[k] is not None}
    meta.update(row.get("_meta") or {})
    return Candidate(str(ident), question, correct, keep, article, images, meta, dropped_refs=dropped)


# -- the task ---------------------------------------------------------------------------------
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
