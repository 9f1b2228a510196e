"""A job and its stored records, both ways: `write_job` stores a job's turns and decision under
`Job.key` (the only place a key is made) with every field that rebuilds the job, and
`job_of_record` rebuilds the `Job` of a stored decision from those fields."""

from __future__ import annotations

from typing import Any

from oversight_bench.protocol import Job
from oversight_bench.questions import Question
from oversight_bench.rundir import legacy
from oversight_bench.rundir.records import Decision
from oversight_bench.rundir.rows import check_job
from oversight_bench.rundir.store import Store


def job_fields(job: Job, judge: str, agent: str) -> dict[str, Any]:
    """The explicit fields of a job's records (`store.JOB_FIELDS`)."""
    return {"judge": judge, "agent": job.agent or agent, "protocol": job.protocol, "task": job.question.task,
            "question_id": job.question.id, "assignment": job.assignment, "answer_order": job.answer_order}


def _stored_decision(job: Job, decision: dict[str, Any]) -> dict[str, Any]:
    """The decision as stored: with the job's variant and cross-play debaters, so `job_of_record`
    rebuilds the job."""
    decision = dict(decision)
    if job.variant:
        decision["variant"] = job.variant
    if job.debaters:
        decision["extra"] = {**(decision.get("extra") or {}), "debaters": list(job.debaters)}
    return decision


def write_job(store: Store, job: Job, *, judge: str, agent: str, turns: list[dict], decision: dict[str, Any]) -> None:
    """All records of one job, atomically (the store refuses records its reader would not read: `check_job`)."""
    store.write_job(job.key, job_fields(job, judge, agent), turns, _stored_decision(job, decision))


def check_writable(job: Job, *, judge: str, agent: str, turns: list[dict], decision: dict[str, Any]) -> None:
    """`write_job`'s refusal, without a store: a plan that brings finished records (an import) checks
    them all before anything is written."""
    check_job(job.key, job_fields(job, judge, agent), turns, _stored_decision(job, decision))


def job_of_record(d: Decision, q: Question) -> Job:
    """The Job of a stored decision: same key, agent, variant and cross-play debaters."""
    deb = d.extra.debaters if d.extra is not None else None
    debaters = tuple(deb) if isinstance(deb, list) and len(deb) == 2 and all(isinstance(x, str) for x in deb) else None
    job = Job(d.protocol, q, d.answer_order, d.assignment, variant=d.variant, agent=d.agent, debaters=debaters)
    return job if job.key == d.job_key else legacy.job_of_keyed_record(job, d.job_key)
