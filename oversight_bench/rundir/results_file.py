"""`results.json` and `samples.jsonl`: the run folder's files for tools that read no SQLite.

lm-eval writes `results_*.json` (per task metrics, config, versions) and `samples_*.jsonl` (one line
per scored document) at the end of a run; a run directory here gets the same two, derived from the
store at the end of every run (and rewritten whole on a resume, so they always describe the whole
store, not the last invocation). The store stays the source of truth: deleting both files loses
nothing, and the next run (or resume) of the same command writes them again.

`Results` is the one pydantic model of `results.json`; its JSON schema is committed as
docs/results-schema.json (a test checks it is the model's), so a reader in another language can
validate the file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from pydantic import BaseModel, ConfigDict, Field

from oversight_bench.redact import redact_text
from oversight_bench.rundir.store import dumps

RESULTS_NAME = "results.json"
SAMPLES_NAME = "samples.jsonl"
#: bump when a field of `Results` changes meaning or goes away (adding one does not)
RESULTS_FORMAT = 1


class CellResult(BaseModel):
    """One judge · protocol · task cell, computed as the end-of-run table and `report` compute it."""

    model_config = ConfigDict(extra="forbid")
    judge: str
    protocol: str
    task: str
    n: int = Field(description="questions with at least one valid answer (the accuracy's denominator)")
    n_records: int = Field(description="judge decisions (answers) in the cell, valid or not")
    n_invalid: int = Field(description="decisions whose answer did not parse (never guessed)")
    invalid_rate: float | None = Field(None, description="n_invalid / n_records")
    accuracy: float | None = Field(None, description="mean over questions of each question's accuracy over its valid "
                                   "answers, 0..1; null with no valid answer")
    ci_low: float | None = Field(None, description="the paper's 95% CI, lower end; null for one question")
    ci_high: float | None = Field(None, description="the paper's 95% CI, upper end; null for one question")
    accuracy_invalid_wrong: float | None = Field(None, description="accuracy with invalid answers counted as wrong")
    quality: dict[str, Any] = Field(default_factory=dict, description="transcript quality figures "
                                    "(analysis.quality: argument-less, forced and cut agent-turn rates, answer-1 share, ...)")
    flagged: list[str] = Field(default_factory=list, description="why the cell fails the quality bar (empty: it passes)")


class CallTotals(BaseModel):
    """The stored model calls of one model in one role (judge or agent), over the whole store."""

    model_config = ConfigDict(extra="forbid")
    model: str
    role: str
    calls: int
    prompt_tokens: int = Field(description="as the backend reported them (0 where it reported none)")
    completion_tokens: int
    latency_s: float = Field(description="summed seconds the calls took (cache hits of other runs included as stored)")


class Timings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    started: str = Field(description="when this invocation started (ISO 8601, local time with offset)")
    finished: str = Field(description="when this file was written")
    seconds: float = Field(description="wall seconds of this invocation, from its start to this file")


class JobCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    done: int = Field(description="jobs finished by this invocation")
    already_stored: int = Field(description="jobs a resume found finished")
    failed: int = Field(description="jobs that failed in this invocation (running the same command retries them)")
    decisions: int = Field(description="decision records in the store (one line each in samples.jsonl)")
    model_calls: int = Field(description="calls this invocation made to a model (cache hits aside)")
    cache_hits: int


class Results(BaseModel):
    """`results.json`: the figures of a run directory, written at the end of every run and resume."""

    model_config = ConfigDict(extra="forbid")
    format: int = Field(RESULTS_FORMAT, description="this file's format version")
    kind: str = Field(description="the command that wrote the run: run, judge, crossplay, import, ...")
    output: str = Field(description="the run directory")
    cells: list[CellResult] = Field(description="one per judge · protocol · task, sorted")
    deviations: list[str] = Field(description="every setting of the run that differs from the paper's")
    skipped: list[dict[str, Any]] = Field(default_factory=list, description="rows or transcripts left out, with the "
                                          "reason and count ({task, reason, count}; task '-' for a re-judging's)")
    failures: dict[str, int] = Field(default_factory=dict, description="one-line reason -> jobs that failed for it")
    jobs: JobCounts
    calls: list[CallTotals] = Field(description="stored calls, tokens and seconds per model and role")
    timings: Timings
    versions: dict[str, Any] = Field(description="package versions, python, platform and git commit (from config.json)")
    config: dict[str, Any] = Field(description="the run's config.json as written (secrets redacted)")
    files: dict[str, str] = Field(description="the run folder's other files: store, config, samples")


def results_schema() -> dict[str, Any]:
    """The JSON schema docs/results-schema.json holds."""
    return Results.model_json_schema()


def call_totals(store) -> list[CallTotals]:
    rows = store._select("SELECT model, COALESCE(role, ''), COUNT(*), COALESCE(SUM(prompt_tokens), 0), "
                         "COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(latency_s), 0) FROM calls "
                         "GROUP BY model, role ORDER BY model, role")
    return [CallTotals(model=m, role=r, calls=n, prompt_tokens=p, completion_tokens=c, latency_s=round(s, 3))
            for m, r, n, p, c, s in rows]


def build_results(store, config: dict[str, Any], summary: list[dict[str, Any]], stats, skipped: list[dict[str, Any]],
                  started: float) -> Results:
    versions = {k: config.get(k) for k in ("versions", "python", "platform", "commit")}
    return Results(
        kind=str(config.get("kind") or "run"), output=str(store.dir),
        cells=[CellResult(**{k: r.get(k) for k in CellResult.model_fields}) for r in summary],
        deviations=list(config.get("deviations") or []), skipped=list(skipped),
        failures=dict(getattr(stats, "failures", {}) or {}),
        jobs=JobCounts(done=stats.jobs_done, already_stored=stats.jobs_skipped, failed=stats.jobs_failed,
                       decisions=store.count("decision"), model_calls=stats.calls, cache_hits=stats.cache_hits),
        calls=call_totals(store),
        timings=Timings(started=config.get("started") or _iso(time.time() - (time.monotonic() - started)),
                        finished=_iso(time.time()), seconds=round(time.monotonic() - started, 3)),
        versions=versions, config=config, files={"store": "results.sqlite", "config": "config.json",
                                                 "samples": SAMPLES_NAME})


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


def sample_rows(store) -> Iterator[dict[str, Any]]:
    """One row per decision, in the store's order: the job's fields, the judge's raw output, parsed
    answer, correctness and probabilities, and the turns the judge read (`shown`, thinking stripped).
    A job's turns are written just before its decision (one transaction), so only the current
    job's turns are held."""
    turns: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in store.records():
        key = (r.job_key, r.judge or "")
        if r.kind == "turn":
            turns.setdefault(key, []).append({"round": r.round, "speaker": r.speaker, "role": r.role,
                                              "shown": r.shown_text})
            continue
        row = {k: getattr(r, k) for k in ("job_key", "judge", "agent", "protocol", "task", "question_id", "assignment",
                                          "answer_order", "answer", "correct", "probs", "raw", "answers", "correct_index")}
        row["invalid"] = r.answer is None and not r.unjudged
        if r.unjudged:
            row["unjudged"] = True
        row["turns"] = turns.pop(key, [])
        yield row


def _replace(path: Path, lines: Iterable[str]) -> None:
    """Write whole or not at all: a temporary file beside it, then renamed."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            for line in lines:
                f.write(line)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_results(store, config: dict[str, Any], summary: list[dict[str, Any]], stats, skipped: list[dict[str, Any]],
                  started: float) -> Results:
    """Write `samples.jsonl`, then `results.json` (so a results file always has its samples beside it).
    One more pass over the store at the end of a run: about 2.5 s per 20,000 decisions (20k-decision
    synthetic store on a loaded 2-core machine: reading 1.0 s, redacting 0.7 s), which a resume repeats."""
    _replace(store.dir / SAMPLES_NAME,
             (redact_text(dumps(row)) + "\n" for row in sample_rows(store)))
    results = build_results(store, config, summary, stats, skipped, started)
    _replace(store.dir / RESULTS_NAME, [redact_text(json.dumps(results.model_dump(mode="json"), indent=1, ensure_ascii=False,
                                                              default=str)) + "\n"])
    return results


def read_results(directory: str | Path) -> Results:
    return Results.model_validate_json(Path(directory, RESULTS_NAME).read_text(encoding="utf-8"))
