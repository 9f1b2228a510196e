"""The public API for plugins: everything a plugin package may import from oversight-bench, besides
`oversight_bench.hookimpl` and `oversight_bench.__version__`. The rest of the core may change
without notice; tests/test_layering.py holds every plugin package (built-in and example) to this.

Hooks
    hookimpl: marks a plugin's hook implementations (the hooks: `oversight_bench.hookspecs`).
Errors
    BenchError: a user error, shown as one line (exit 2). MalformedResponse: a backend got an answer
    it cannot read (the call is re-sent). validation_error: a pydantic ValidationError as that one line.
Models (backends implement `Model`)
    Model, Spec (parsed once; in a run it carries its options as the backend validated them), Capabilities, Completion,
    Message, text_of, parse_spec, build_model (from a Spec or a spec's text), redact_spec,
    ModelName (a bare model name and the roles it is the default for: hook `register_model_names`),
    ModelStatus (a named model's install state and size, which its plugin reports for `list models`),
    note_retry (a backend re-sent a request: counted in the call's record and the progress display),
    note_usage (the tokens a server reported for a request: stored with the call),
    note_no_probs (why a backend has no answer probability: stored with the call),
    BackendOptions (subclass it as a backend's `Options`), parse_backend_options(model, spec) (its typed values).
Secrets
    MASK, is_secret_name, register_secret, redact_text: a registered secret never reaches an output.
Protocols (subclass `Protocol`; it sees the run only through `Context`)
    Protocol, Context, Job, Turn, Decision; speaker names: SOURCE_DEBATERS (an imported room's debaters,
    "Debater A"/"Debater B", by the answer each defends; source_debater(side)), CONSULTANT, JUDGE.
Protocol options (a protocol's `Options`: subclass `CommonOptions`, declare each field with `option`)
    CommonOptions (the settings every protocol shares), option(default, paper=..., label=...),
    NO_PAPER_VALUE (the paper sets no value: a token cap), OUTSIDE_PAPER (the paper has no such option),
    options_model(protocols) / run_options_model(names) (a run's options: its protocols' together),
    own_options(protocol, options) (a run's options as one protocol's), stored_options (a stored run's),
    JUDGE_SAMPLING (the judge options that are a model's sampling settings: a person judging has none).
Agent turns and the judge's decision (what makes a protocol's turns the paper's; the built-ins use these)
    agent_turn (think, then argue, each in its budget, forced continuation, cut marks; best-of-N with
    the H.7 pick where a `pick_prompt` is given), argue, pick_most_persuasive, ARGUMENT_HEADER,
    agent_article (the article agents quote from: extractive tasks), user_message (a call's message, images first),
    judge_decide (predict / cot / probs, debiased where the judge is), judge_examples (few-shot), relabel,
    is_correct, PromptFor. The records: oversight_bench/agent_turns.py and judging.py say what `Turn.extra`
    and `Decision` hold.
Judge tools (beyond the paper: `-o judge_tool=NAME`; hook `register_judge_tools`)
    JudgeTool (subclass it: `.name`, `.label`, `.tasks`, `.run(question, answers)` -> a text per answer),
    ToolOutput (what the judge's prompt shows: each answer's text, one bounded line).
Questions, tasks and data (a task loader returns `Records`)
    Question, Image, LoadResult, ORDERS, correct_index, other_order, LoadContext, Records,
    read_rows, read_many, read_csv_bytes, content_sha256, note_read (a file a loader read itself: fingerprinted),
    load_yaml_dir, load_yaml_tasks, data_dir, DATA_ENV, resolve_tasks (task names and groups -> tasks),
    is_counting / CountDeferred (`list tasks` only counts: a loader may decline slow work, saying what it is).
Caches
    cache_dir(name): a named subfolder of the one cache root ($CACHE_ENV, else the user cache folder).
Text parsing (what agents and judges wrote)
    parse_answer, parse_letter, split_thinking, argues_at_line_start, process_turn, turn_notes,
    verified_passages (the verified quotes of a checked turn), untag_passages (its quotes without the marks),
    replace_surrogates (a model's lone surrogates as U+FFFD).
    is_argument (a turn whose role argues a side: consultant or debater).
Command-line helpers
    parse_key_values: `-o KEY=VALUE` pairs, values read as YAML. output_option: the `--output DIR` flag
    (`-o` is never an output folder). load_json_text: untrusted JSON (bounded nesting, no NaN), one
    line naming where; strict_json: the same reader raising ValueError (a server's reply, a data row).
    read_input_bytes / read_input_text: an untrusted input file, bounded (a regular file of at most
    16 MB by default; /dev/zero, a FIFO or a folder refused), its text UTF-8 or one line naming the byte.
Runs and their records
    get_registry, deviations, provenance, mean_ci (a mean with the paper's 95% CI,
    as every accuracy table computes it).
Pages (`oversight_bench.render.pages`: the one Jinja environment)
    plugin_pages(prefix, folder, filters): the environment with a plugin's template folder added under
    `prefix/` (the core's templates, the room among them, stay reachable); `.render(name, **context)`.
    render_passages: a turn HTML-escaped, its passage tags as highlighted spans.
Transcript suites
    ImportedSuite, RunSuite, get_suite, suite_data_dir.
Running plans (a command that writes a run directory makes a `Plan` and hands it to the pipeline)
    Plan, Prepared, execute, start, check_capabilities, Scheduler, JobContext,
    write_run_files (results.json and samples.jsonl, for a plan that judges as it goes and stops),
    ImportPlan, Record (already-complete transcripts written as a run: importers),
    read_run, StoredRun (a stored run read once), judge_identity, rejudge_jobs (re-judging stored turns),
    RunReader (the one reader of a run directory, strictly read-only: its records whole, typed, and
    the indexes `oversight-bench view` browses; ReadOnlyRun is its earlier name), is_run_dir,
    store_files (a run's store and write-ahead log: what a live view watches),
    refuse_output_inside (a reader's output is never inside a run it reads),
    refuse_foreign_output (nor a folder holding anything but its own earlier output),
    in_use (a writer holds a run directory now: a run in progress).
    TurnRecord, DecisionRecord, CallRecord: the typed stored records (`rundir.records` Turn, Decision,
    Call) RunReader gives (`job_records`, `calls_of`, `records`, `turns`, `decisions`, `calls`;
    `identity()` the run's config.json as `rundir.records.RunIdentity`); `stored()` gives a record
    back as stored.

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
    **dict.fromkeys(("BackendOptions", "parse_backend_options"), "oversight_bench.backend_options"),
    **dict.fromkeys(("agent_turn", "argue", "pick_most_persuasive", "agent_article", "user_message", "ARGUMENT_HEADER"),
                    "oversight_bench.agent_turns"),
    **dict.fromkeys(("judge_decide", "judge_examples", "relabel", "is_correct", "PromptFor"), "oversight_bench.judging"),
    **dict.fromkeys(("MASK", "is_secret_name", "register_secret", "redact_text"), "oversight_bench.redact"),
    **dict.fromkeys(("Protocol", "Context", "Job", "Turn", "Decision", "SOURCE_DEBATERS", "CONSULTANT", "JUDGE",
                     "source_debater"), "oversight_bench.protocol"),
    **dict.fromkeys(("CommonOptions", "option", "NO_PAPER_VALUE", "OUTSIDE_PAPER", "options_model", "run_options_model",
                     "own_options", "stored_options", "JUDGE_SAMPLING"), "oversight_bench.protocol_options"),
    **dict.fromkeys(("JudgeTool", "ToolOutput"), "oversight_bench.judge_tools"),
    **dict.fromkeys(("Question", "Image", "LoadResult", "ORDERS", "correct_index", "other_order"),
                    "oversight_bench.questions"),
    **dict.fromkeys(("LoadContext", "Records", "content_sha256", "note_read", "CountDeferred", "counting_only",
                     "is_counting"), "oversight_bench.sources"),
    **dict.fromkeys(("read_rows", "read_many", "read_csv_bytes"), "oversight_bench.data_files"),
    "load_yaml_dir": "oversight_bench.yaml_task",
    **dict.fromkeys(("load_yaml_tasks", "data_dir", "DATA_ENV", "resolve_tasks"), "oversight_bench.tasks"),
    **dict.fromkeys(("parse_answer", "parse_letter", "split_thinking", "argues_at_line_start", "process_turn",
                     "turn_notes", "verified_passages", "untag_passages", "fold_marks", "replace_surrogates", "is_argument"),
                    "oversight_bench.model_text"),
    **dict.fromkeys(("parse_key_values", "load_json_text", "strict_json", "read_input_bytes",
                     "read_input_text"), "oversight_bench.yamlio"),
    "output_option": "oversight_bench.flags",
    "get_registry": "oversight_bench.registry",
    "deviations": "oversight_bench.deviations",
    "mean_ci": "oversight_bench.analysis.stats",
    "provenance": "oversight_bench.provenance",
    **dict.fromkeys(("render_passages", "plugin_pages"), "oversight_bench.render.pages"),
    **dict.fromkeys(("ImportedSuite", "RunSuite", "get_suite"), "oversight_bench.suites"),
    **dict.fromkeys(("Plan", "Prepared", "execute", "start", "check_capabilities", "write_run_files"),
                    "oversight_bench.pipeline"),
    **dict.fromkeys(("ImportPlan", "Record", "judge_identity", "rejudge_jobs"), "oversight_bench.plans"),
    **dict.fromkeys(("read_run", "StoredRun", "RunReader", "ReadOnlyRun", "is_run_dir", "store_files", "refuse_output_inside",
                     "refuse_foreign_output", "in_use"),
                    "oversight_bench.rundir"),
    **dict.fromkeys(("Scheduler", "JobContext"), "oversight_bench.scheduler"),
}
#: public name -> its name in the defining module, where the two differ
_RENAMED = {"suite_data_dir": ("oversight_bench.suites", "data_dir"),
            **{f"{n}Record": ("oversight_bench.rundir.records", n) for n in ("Turn", "Decision", "Call")}}

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
