"""The run directory: its store (results.sqlite and config.json; `names`), the checks its rows pass
where they are read and written (`rows`), the run's identity and the checks a
resume makes against it, writing jobs, the one reader of a run (`RunReader`, handing out the typed
records of `records`), a stored run read for re-judging, export, salvage, and the code for older
formats (`legacy`). Nothing outside this package opens a store: every command that reads a run reads
it through `RunReader`, and every command that writes one opens it here (`WritableRun`, through
`pipeline.start`)."""

import importlib
from typing import Any

#: public name -> the submodule that defines it; resolved on first use, so a command that needs only
#: the store (salvage, the CLI's start) does not load the protocol and model layers
_SOURCES = {
    "export_jsonl": "export",
    **dict.fromkeys(("export_preferences", "preference_rows"), "preferences"),
    **dict.fromkeys(("IDENTITY_KEYS", "OPTIONAL_IDENTITY_KEYS", "check_data", "check_identity", "identity_of"), "identity"),
    **dict.fromkeys(("check_writable", "job_fields", "job_of_record", "write_job"), "jobs"),
    **dict.fromkeys(("ReadOnlyRun", "RunReader", "is_run_dir", "store_files"), "reader"),
    **dict.fromkeys(("RECORDS_VERSION", "Call", "Decision", "QuestionRecord", "RunIdentity", "Turn", "records_schema"), "records"),
    **dict.fromkeys(("CONFIG_NAME", "DB_NAME", "LOCK_NAME"), "names"),
    **dict.fromkeys(("check_speakers", "read_config_file"), "rows"),
    **dict.fromkeys(("SharedCalls", "Store", "in_use"), "store"),
    **dict.fromkeys(("first_link", "refuse_foreign_output", "refuse_output_inside"), "folders"),
    **dict.fromkeys(("StoredRun", "load_decisions", "read_run"), "transcripts"),
    **dict.fromkeys(("WritableRun", "check_output"), "writing"),
}

__all__ = sorted(_SOURCES)


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_SOURCES[name]}"), name)
    globals()[name] = value
    return value
