"""The public API for plugins: everything a plugin package may import from oversight-bench, besides
`oversight_bench.hookimpl` and `oversight_bench.__version__`. The rest of the core may change
without notice; tests/test_layering.py holds every plugin package (built-in and example) to this.

Hooks
    hookimpl: marks a plugin's hook implementations (the hooks: `oversight_bench.hookspecs`).
Errors
    BenchError: a user error, shown as one line (exit 2). MalformedResponse: a backend got an answer
    it cannot read (the call is re-sent). validation_error: a pydantic ValidationError as that one line.
Models (backends implement `Model`)
    Model, Spec, Capabilities, Completion, Message, text_of, parse_spec, build_model, redact_spec,
    ModelName (a bare model name and the roles it is the default for: hook `register_model_names`),
    ModelStatus (a named model's install state and size, which its plugin reports for `list models`),
    note_retry (a backend re-sent a request: counted in the call's record and the progress display),
    note_usage (the tokens a server reported for a request: stored with the call),
    note_no_probs (why a backend has no answer probability: stored with the call).
Secrets
    MASK, is_secret_name, register_secret, redact_text: a registered secret never reaches an output.
Protocols (subclass `Protocol`; it sees the run only through `Context`)
    Protocol, ProtocolOptions, Context, Job, Turn, Decision, NO_PAPER_VALUE.
Judge tools (beyond the paper: `-o judge_tool=NAME`; hook `register_judge_tools`)
    JudgeTool (subclass it: `.name`, `.label`, `.tasks`, `.run(question, answers)` -> a text per answer),
    ToolOutput (what the judge's prompt shows: each answer's text, one bounded line).
Questions, tasks and data (a task loader returns `Records`)
    Question, Image, LoadResult, ORDERS, correct_index, other_order, LoadContext, Records,
    read_rows, read_many, read_csv_bytes, content_sha256, load_yaml_dir, load_yaml_tasks, data_dir, DATA_ENV.
Caches
    cache_dir(name): a named subfolder of the one cache root ($CACHE_ENV, else the user cache folder).
Text parsing (what agents and judges wrote)
    parse_answer, parse_letter, split_thinking, argues_at_line_start, process_turn, turn_notes,
    verified_passages (the verified quotes of a checked turn), untag_passages (its quotes without the marks),
    replace_surrogates (a model's lone surrogates as U+FFFD).
Command-line helpers
    parse_key_values: `-o KEY=VALUE` pairs, values read as YAML. output_option: the `--output DIR` flag
    (`-o` is never an output folder). load_json_text: untrusted JSON (bounded nesting, no NaN).
Runs and their records
    get_registry, deviations, provenance, render_passages.
Transcript suites
    ImportedSuite, RunSuite, get_suite, suite_data_dir.
Running plans (a command that writes a run directory makes a `Plan` and hands it to the pipeline)
    Plan, Prepared, execute, start, check_capabilities, Scheduler, JobContext,
    ImportPlan, Record (already-complete transcripts written as a run: importers),
    read_run, StoredRun (a stored run read once), judge_identity, rejudge_jobs (re-judging stored turns),
    ReadOnlyRun (a run directory browsed strictly read-only: `oversight-bench view`),
    refuse_output_inside (a reader's output is never inside a run it reads).

Names resolve on first use, so importing this module loads nothing heavy (the report renderer
pulls in numpy and scipy; a protocol plugin should not pay for that).
"""

from __future__ import annotations

import importlib
from typing import Any

from oversight_bench import __version__, hookimpl

#: public name -> the core module that defines it
_SOURCES: dict[str, str] = {
    **dict.fromkeys(("BenchError", "MalformedResponse", "validation_error"), "oversight_bench.errors"),
    **dict.fromkeys(("cache_dir", "CACHE_ENV"), "oversight_bench.locations"),
    **dict.fromkeys(("Model", "Spec", "Capabilities", "Completion", "Message", "ModelName", "ModelStatus", "text_of", "parse_spec",
                     "build_model", "redact_spec"), "oversight_bench.models"),
    **dict.fromkeys(("note_retry", "note_usage", "note_no_probs"), "oversight_bench.scheduler"),
    **dict.fromkeys(("MASK", "is_secret_name", "register_secret", "redact_text"), "oversight_bench.redact"),
    **dict.fromkeys(("Protocol", "ProtocolOptions", "Context", "Job", "Turn", "Decision", "NO_PAPER_VALUE"),
                    "oversight_bench.protocol"),
    **dict.fromkeys(("JudgeTool", "ToolOutput"), "oversight_bench.judge_tools"),
    **dict.fromkeys(("Question", "Image", "LoadResult", "ORDERS", "correct_index", "other_order"),
                    "oversight_bench.questions"),
    **dict.fromkeys(("LoadContext", "Records", "read_rows", "read_many", "read_csv_bytes", "content_sha256"),
                    "oversight_bench.sources"),
    "load_yaml_dir": "oversight_bench.yaml_task",
    **dict.fromkeys(("load_yaml_tasks", "data_dir", "DATA_ENV"), "oversight_bench.tasks"),
    **dict.fromkeys(("parse_answer", "parse_letter", "split_thinking", "argues_at_line_start", "process_turn",
                     "turn_notes", "verified_passages", "untag_passages", "replace_surrogates"), "oversight_bench.model_text"),
    **dict.fromkeys(("parse_key_values", "load_json_text", "read_input_bytes"), "oversight_bench.yamlio"),
    "output_option": "oversight_bench.flags",
    "get_registry": "oversight_bench.registry",
    "deviations": "oversight_bench.deviations",
    "provenance": "oversight_bench.provenance",
    "render_passages": "oversight_bench.analysis.leaderboard",
    **dict.fromkeys(("ImportedSuite", "RunSuite", "get_suite"), "oversight_bench.suites"),
    **dict.fromkeys(("Plan", "Prepared", "execute", "start", "check_capabilities"), "oversight_bench.pipeline"),
    **dict.fromkeys(("ImportPlan", "Record", "judge_identity", "rejudge_jobs"), "oversight_bench.plans"),
    **dict.fromkeys(("read_run", "StoredRun", "ReadOnlyRun", "refuse_output_inside"), "oversight_bench.rundir"),
    **dict.fromkeys(("Scheduler", "JobContext"), "oversight_bench.scheduler"),
}
#: public name -> its name in the defining module, where the two differ
_RENAMED = {"suite_data_dir": ("oversight_bench.suites", "data_dir")}

__all__ = sorted(["__version__", "hookimpl", *_SOURCES, *_RENAMED])


def __getattr__(name: str) -> Any:
    if name in _SOURCES:
        module, attr = _SOURCES[name], name
    elif name in _RENAMED:
        module, attr = _RENAMED[name]
    else:
        raise AttributeError(f"oversight_bench.api has no {name!r} (the public API: {', '.join(__all__)})")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return list(__all__)
