"""The run directory: its store (results.sqlite and config.json), the run's identity and the checks a
resume makes against it, writing and reading jobs, a stored run read for re-judging, export, salvage,
and the code for older formats (`legacy`). Every command that writes a run directory opens it here
(`WritableRun`, through `pipeline.start`); nothing else opens a store for writing."""

from oversight_bench.rundir.export import export_jsonl
from oversight_bench.rundir.identity import (IDENTITY_KEYS, OPTIONAL_IDENTITY_KEYS, check_data, check_identity,
                                             identity_of)
from oversight_bench.rundir.jobs import job_fields, job_of_record, write_job
from oversight_bench.rundir.readonly import ReadOnlyRun
from oversight_bench.rundir.store import CONFIG_NAME, DB_NAME, LOCK_NAME, SharedCalls, Store, check_speakers
from oversight_bench.rundir.transcripts import StoredRun, load_decisions, read_run
from oversight_bench.rundir.writing import WritableRun, check_output

__all__ = [
    "CONFIG_NAME", "DB_NAME", "IDENTITY_KEYS", "LOCK_NAME", "OPTIONAL_IDENTITY_KEYS", "ReadOnlyRun", "SharedCalls", "Store",
    "StoredRun", "WritableRun", "check_data", "check_identity", "check_output", "check_speakers", "export_jsonl",
    "identity_of", "job_fields", "job_of_record", "load_decisions", "read_run", "write_job",
]
