"""`--carry`: a previous build's results.json, checked field by field (`check_carry`, `check_page`:
strict pydantic models of every row, cell, headline, Elo player and carried transcript page), and its
cells that this build does not measure merged into the new rows (`_carry_cells`), each marked with the
build it came from. Validation and merging only: the publisher reads the files (`publish.carry`) and
writes the carried pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from oversight_bench.analysis.leaderboard import (OLD_SCHEMAS, PAGE_LINK, SCHEMA, SELF_JUDGED, _argued, _carried_agents,
                                                  _judge_kind, self_judged)
from oversight_bench.analysis.quality import Flag
from oversight_bench.errors import BenchError, validation_error


class _Checked(BaseModel):
    """Strict types for the fields the tables, the page and the headlines read; others pass through."""
    model_config = ConfigDict(extra="allow", strict=True)


class _Build(_Checked):
    generated: Optional[str] = None
    commit: Optional[str] = None


class _Reference(_Checked):
    judge: Optional[str] = None
    accuracy: Optional[float]
    n: int = Field(ge=0)
    p_value: Optional[float] = None


class _Stats(_Checked):
    accuracy: Optional[float] = Field(default=None, ge=0, le=1)
    n: int = Field(ge=0)
    n_records: int = Field(default=0, ge=0)
    ci_low: Optional[float] = None
    ci_high: Optional[float] = None


class _CarriedCell(_Checked):
    protocol: str
    scope: str
    n: int = Field(ge=0)
    accuracy: Optional[float] = Field(default=None, ge=0, le=1)
    ci_low: Optional[float] = None
    ci_high: Optional[float] = None
    per_question: Optional[dict[str, float]] = None
    transcripts: Optional[str] = None
    rooms: Optional[str] = None
    no_link: Optional[str] = None
    carried: Optional[_Build] = None
    reference: Optional[_Reference] = None  # schema v2: the one human reference
    references: Optional[list[_Reference]] = None
    on_model_rooms: Optional[_Stats] = None
    deviations: Optional[list[str]] = None
    quality: Optional[dict[str, Any]] = None
    flagged: Optional[list[str]] = None


class _Headline(_Checked):
    a: str
    b: str
    diff: Optional[float] = None
    p_value: Optional[float] = None
    n: int = Field(default=0, ge=0)
    carried: Optional[_Build] = None

    @model_validator(mode="after")
    def _p_with_diff(self) -> "_Headline":
        if self.diff is not None and self.p_value is None:
            raise ValueError("a headline with a diff needs its p_value")
        return self


class _CarriedRow(_Checked):
    judge: str
    kind: Literal["model", "human"] = "model"
    cells: dict[str, _CarriedCell] = {}
    headlines: list[_Headline] = []
    deviations: list[str] = []
    provenance: list[dict[str, Any]] = []
    about: Optional[str] = None


class _CarriedPlayer(_Checked):
    player: str
    games: int = Field(ge=0)
    rating: float
    ci_low: Optional[float]
    ci_high: Optional[float]


class _CarriedElo(_Checked):
    n_games: int = Field(ge=0)
    players: list[_CarriedPlayer]
    prior: Optional[str] = None
    bootstrap_unit: Optional[str] = None
    carried: Optional[_Build] = None


class _Carried(_Checked):
    schema_: str = Field(alias="schema")
    generated: Optional[str] = None
    commit: Optional[str] = None
    judges: list[_CarriedRow]
    elo: Optional[_CarriedElo] = None


def check_carry(prev: Any, path: str | Path, read_page: Callable[[str], dict[str, Any] | None]) -> dict[str, Any]:
    """A previous build's results.json, parsed (`publish.carry.load_carry` read it from `path`), whose
    cells this build keeps where it measures nothing for them: every carried row, cell and Elo player
    is checked before anything is written; each linked transcript page's data comes from
    `read_page(link)` (checked by `check_page`; None: its board kept none), kept under `_pages`."""
    if not isinstance(prev, dict) or prev.get("schema") not in (SCHEMA, *OLD_SCHEMAS) or not isinstance(prev.get("judges"), list):
        raise BenchError(f"--carry {path}: not a {SCHEMA} results.json; expected one written by `oversight-bench leaderboard`")
    try:
        _Carried.model_validate(prev)
    except ValidationError as exc:
        raise validation_error(exc, f"--carry {path} (a results.json of `oversight-bench leaderboard`)") from None
    pages: dict[str, dict[str, Any] | None] = {}
    for row in prev["judges"]:
        for key, cell in (row.get("cells") or {}).items():
            if key != f"{cell['protocol']} · {cell['scope']}":
                raise BenchError(f"--carry {path}: judge {row['judge']!r} has cell {key!r} holding "
                                 f"{cell['protocol']} · {cell['scope']}; expected the key to name its protocol and scope")
            link = cell.get("transcripts")
            if link is not None and not PAGE_LINK.fullmatch(link):
                raise BenchError(f"--carry {path}: judge {row['judge']!r} cell {key!r} links {link[:80]!r}; expected "
                                 f"transcripts/NAME.html (a page of the carried board)")
            if link is not None and link not in pages:
                pages[link] = read_page(link)
            ref = cell.pop("reference", None)  # v2's one reference: v3's list
            if ref is not None and cell.get("references") is None:
                cell["references"] = [ref]
    prev["_pages"] = pages
    return prev


class _PageAnswer(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    text: str
    correct: bool


class _PageTurn(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    role: str
    round: Optional[int | str] = None
    speaker: str
    defends: Optional[int | str] = None
    marks: list[str] = []
    text: Optional[str] = None


class _PageVerdict(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    judge: str
    answer: Optional[int | str] = None
    correct: bool
    probs: Optional[list[Optional[float]]] = None


class _PageRoom(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=r"^[A-Za-z0-9-]{1,200}$")
    question: str
    protocol: str
    task: str
    assignment: str
    answer_order: str
    agent: str
    answers: list[_PageAnswer]
    turns: list[_PageTurn]
    verdicts: list[_PageVerdict]


class _Page(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    schema_: Literal["oversight-bench/leaderboard-page/v1"] = Field(alias="schema")
    title: str
    heading: str
    rooms: list[_PageRoom]
    n_rooms: int = Field(ge=0)
    judges: str


def check_page(data: Any, where: str | Path) -> dict[str, Any]:
    """A carried page's data (what `_write_page` rendered it from), parsed from `where`, checked field by field."""
    try:
        return _Page.model_validate(data).model_dump(by_alias=True)
    except ValidationError as exc:
        raise validation_error(exc, f"--carry page data {where} (written by `oversight-bench leaderboard`)") from None


def _option_deviations(provenance: list[dict[str, Any]]) -> set[str]:
    """The option deviations of carried runs, derived again from the options their provenance
    recorded: an older build may have declared fewer (token caps, judge temperature)."""
    from oversight_bench.deviations import option_deviations

    return {d for p in provenance if isinstance(p.get("options"), dict) for d in option_deviations(p["options"])}


def _unmeasured_flags(cell: dict[str, Any]) -> list[Flag]:
    """Flags of a carried cell whose build recorded no quality: an argued protocol's arguments cannot
    be checked ("unmeasured"); a cell whose every question was right in exactly one of its two answer
    orders is a position picker's ("one_order_each": its CI has zero width for that reason)."""
    flags = [Flag("unmeasured")] if _argued(cell["protocol"]) else []
    scores = list((cell.get("per_question") or {}).values())
    if len(scores) > 1 and all(s == 0.5 for s in scores):
        flags.append(Flag("one_order_each", n=len(scores)))
    return flags


def _carry_cells(prev: dict[str, Any], judges_out: list[dict[str, Any]], columns: list[tuple[str, str]],
                 min_n: int, write_page: Callable[[str, dict[str, Any]], None]) -> int:
    """Add the previous build's cells (and rows) this build did not measure, each marked `carried`
    with the build it came from and `small` by this build's `min_n`. Their runs are not here, so they
    have no room pages: a cell keeps the transcript page its board rendered (rendered again from the
    data kept beside it, `publish.carry.load_carry`, by `write_page(slug, data)`), else it has none and `no_link` says why. A cell without its
    own `deviations` (an older build) gets its row's. A row's headlines are remembered so that one
    whose cells cannot pair (no per-question scores) keeps them. Returns how many cells were carried."""
    rows = {r["judge"]: r for r in judges_out}
    since = {"generated": prev.get("generated"), "commit": prev.get("commit")}
    when = str(prev.get("generated") or "unknown")[:10]
    built: set[str] = set()
    n = 0
    for old in prev["judges"]:
        row = rows.get(old["judge"])
        if row is None:
            row = {"judge": old["judge"], "kind": old.get("kind", _judge_kind(old["judge"])), "cells": {}, "headlines": [],
                   "deviations": [], "provenance": []}
            rows[old["judge"]] = row
            judges_out.append(row)
        row["_old_headlines"] = [{**h, "carried": h.get("carried") or since} for h in old.get("headlines") or []
                                 if isinstance(h, dict) and h.get("diff") is not None]
        fresh = not row["cells"]
        old_devs = set(old.get("deviations") or []) | _option_deviations(old.get("provenance") or [])
        for key, cell in (old.get("cells") or {}).items():
            if key in row["cells"]:
                continue
            cell = {**cell, "carried": cell.get("carried") or since, "small": cell["n"] < min_n}
            cell.pop("rooms", None)  # its runs are not given to this build: no room pages
            if isinstance(cell.get("on_model_rooms"), dict):
                cell["on_model_rooms"] = {k: v for k, v in cell["on_model_rooms"].items() if k != "rooms"}
            cell.pop("no_link", None)
            if cell.get("deviations") is None:
                cell["deviations"] = sorted(old_devs)
            cell.pop("self_judged", None)  # decided again, by this build's rule
            if self_judged(old["judge"], cell["protocol"], _carried_agents(cell, old.get("provenance") or [])):
                cell["self_judged"] = SELF_JUDGED
            if cell.get("quality") is None:  # a build that recorded no quality: what its data still shows
                cell["flagged"] = _unmeasured_flags(cell)
            page = cell.get("transcripts")
            if page and page not in built:
                data = prev["_pages"].get(page)
                if data is None:
                    cell.pop("transcripts")
                else:
                    write_page(PAGE_LINK.fullmatch(page).group(1), data)
                    built.add(page)
            if not cell.get("transcripts"):
                cell["no_link"] = (f"carried from the build of {when}, whose runs were not given to this build: "
                                   "no room pages (rebuild with its runs to link them)")
            row["cells"][key] = cell
            if (cell["protocol"], cell["scope"]) not in columns:
                columns.append((cell["protocol"], cell["scope"]))
            n += 1
            fresh = True
        if fresh:
            dirs = {p.get("dir") for p in row["provenance"]}
            kept = [p for p in old.get("provenance") or [] if p.get("dir") not in dirs]  # not runs measured again here
            row["deviations"] = sorted(set(row["deviations"]) | set(old.get("deviations") or []) | _option_deviations(kept))
            row["provenance"] = list(row["provenance"]) + kept
    judges_out.sort(key=lambda r: (r["kind"] == "human", r["judge"]))
    return n
