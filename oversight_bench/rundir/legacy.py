"""Run directories in the formats of earlier oversight-bench versions, all in one place: what is
upgraded, what is read as it is, and what is refused. Nothing else in the package branches on a
run's age.

* store format: v1 (no `meta` table, `PRAGMA user_version` 0 or 1) is read as it is and upgraded by
  the first write (`MIGRATIONS`); the typed records each format holds (`RECORDS_OF_FORMAT`);
* config.json and records written before secrets were redacted are redacted on the way out;
* a run written before the paper's defaults and the separate `judge_debias` setting is not resumed;
* records written before a job's variant was stored name it only inside their job key;
* turns written before turns kept a round or a shown text (`turn_fields`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from oversight_bench.errors import BenchError
from oversight_bench.redact import redact_obj, redact_text


def _add_meta(conn: sqlite3.Connection) -> int:
    """v1 -> v2: the `meta` table, which holds the run's identity (see `Store.write_identity`)."""
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("PRAGMA user_version=2")
    return 2


#: store format -> the step that upgrades it by one (a database with the v1 tables but no recorded
#: version, user_version 0, is v1)
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], int]] = {1: _add_meta}
#: older formats that read-only commands (report, export, ...) read as they are: v2 only added a table
READABLE_AS_IS = {1}
#: store format -> the version of the typed records its rows hold (`rundir.records.RECORDS_VERSION`);
#: formats 1 and 2 differ only in the `meta` table. A format whose records differ maps to an older
#: version, and its reading into the current records goes here, beside `MIGRATIONS`.
RECORDS_OF_FORMAT = {1: 1, 2: 1}
#: the tables every v1 store holds (a later format holds all of `store.SCHEMA`'s)
V1_TABLES = frozenset({"calls", "records", "questions"})


def unversioned_format(tables: set[str]) -> int | None:
    """The format of a database with tables but no recorded version: v1 when it holds the v1 tables."""
    return 1 if V1_TABLES <= tables else None


def redacted_config(config: Any) -> Any:
    """A stored config with every secret redacted (a config written before redaction may hold one)."""
    return redact_obj(config)


def redacted_lines(write: Callable[[str], None]) -> Callable[[str], None]:
    """`write`, redacting each exported line (records written before redaction may hold a secret)."""
    return lambda line: write(redact_text(line))


def check_resumable(directory: Any, stored: dict[str, Any]) -> None:
    """Refuse to resume a run directory written before the paper's defaults and `judge_debias`
    existed (its judge name may carry `,debias=True`, its options lack `truncate_words`): its prompts
    and settings are not this version's, so new records would not be comparable with its old ones.
    `report` and `leaderboard` still read such a directory."""
    if stored.get("kind") in ("run", "judge", "crossplay") and "judge_debias" not in stored:
        raise BenchError(
            f"{directory} was written by an earlier oversight-bench (judge {stored.get('judge')!r}, before the paper's "
            f"defaults and the separate judge_debias setting); it cannot be resumed with this version's prompts and "
            f"settings: use another --output (report and leaderboard still read it)")


def check_unchecked_work(directory: Path, holds_work: bool) -> None:
    """A store with records but neither config.json nor a recorded identity (a run from before
    identities were stored, whose config.json was removed) cannot be checked, so it is not resumed."""
    if holds_work:
        raise BenchError(f"{directory} holds records but neither config.json nor a recorded identity (a run from an "
                         f"earlier oversight-bench whose config.json was removed); its settings cannot be checked, "
                         f"so it cannot be resumed: use another --output")


def do_not_publish(config: dict[str, Any]) -> bool:
    """Whether a stored run holds questions that must not be published; runs of earlier versions
    recorded GPQA's case only, as `contains_gpqa`."""
    return bool(config.get("do_not_publish") or config.get("contains_gpqa"))


def job_of_keyed_record(job: Any, job_key: str) -> Any:
    """The job of a record written before its variant was stored (an imported room): the variant is
    what its key adds to the key the record's fields make."""
    rest = job_key[len(job.key) + 1:] if job_key.startswith(job.key + "|") else job_key
    return replace(job, variant=rest)


def turn_fields(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored turn's fields as `protocol.Turn.from_dict` takes them: a turn of an older store without
    a round has none (None), one without a shown text shows its content, and a null content is empty."""
    out = {"round": None, **stored}
    if out.get("shown") is None:
        out["shown"] = out.get("content") or ""
    if out.get("content") is None:
        out["content"] = ""
    return out
