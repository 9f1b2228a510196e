"""`oversight-bench view DIR [DIR...]`: browse the evidence behind the numbers, read-only.

A sample list over one or several run directories (one row per room: a job and its agent, with every
judge's verdict on it), sortable, filterable and paged; a room page (the question, the passage with
the quoted spans highlighted, every turn with its thinking behind a toggle, every judge's raw output,
probabilities, tokens, timing and the exact requests sent); a side-by-side page of one question across
protocols and judges. `--export OUT` writes the same pages as static files, with one paged room list
per cell, which a leaderboard links to (`export_static`).

Why this shape: an accuracy is only as good as the transcripts behind it, and 100,000 records must
stay browsable, so the list is an in-memory index of short rows (built from `ReadOnlyRun.summaries`,
which reads a few JSON fields in SQLite), and each room is read from its store only when opened.
The stores are opened strictly read-only: nothing is written into a run, and a read-only copy works.
Everything shown (model output, dataset text) is escaped by Jinja2's autoescape (`render_passages`
escapes first); the pages run no script (the app's Content-Security-Policy forbids any).
"""

from __future__ import annotations

import bisect
import hashlib
import html
import json
import math
import re
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import urlencode

from markupsafe import Markup

from oversight_bench.api import (BenchError, ReadOnlyRun, load_json_text, mean_ci, plugin_pages, read_input_bytes,
                                redact_text, is_argument, refuse_foreign_output, refuse_output_inside, split_thinking)

TEMPLATES = Path(__file__).parent / "templates"
PAGE_SIZE = 50
EXPORT_PAGE_SIZE = 100
FLAGS = ("forced", "cut", "empty", "invalid")
FLAG_HELP = {"forced": "an agent turn spent its thinking budget and was continued from \"Argument:\"",
             "cut": "an agent turn spent its argument budget", "empty": "an agent turn gave no argument",
             "invalid": "a judge's answer did not parse"}
#: filters that pick one value of a column
FACETS = ("run", "task", "protocol", "assignment", "order", "agent", "judge")
SORTS = ("question", "task", "protocol", "assignment", "order", "agent", "verdicts", "p_correct", "flags", "run")
CELL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,119}$")
_QUOTE_TAG = re.compile(r"<(/?)(v_passage|u_passage|quote)>")


def _quotes(text: str) -> list[tuple[str, bool]]:
    """(quoted text, verified) of each `<tag>...</tag>` of a turn, as `<(tag)>(.*?)</\\1>` finds them
    left to right, in linear time: the tags are found once and each opening is paired with the first
    closing of its name after it (the lazy regex rescans to the end for every unclosed opening:
    30,000 unclosed tags took minutes)."""
    tags = list(_QUOTE_TAG.finditer(text))
    next_close: list[int | None] = [None] * len(tags)
    later: dict[str, int] = {}
    for i in range(len(tags) - 1, -1, -1):
        next_close[i] = later.get(tags[i].group(2))
        if tags[i].group(1):
            later[tags[i].group(2)] = i
    out, i = [], 0
    while i < len(tags):
        j = next_close[i]
        if tags[i].group(1) or j is None:
            i += 1
            continue
        out.append((text[tags[i].end():tags[j].start()], tags[i].group(2) == "v_passage"))
        i = j + 1
    return out

#: the pages, drawn by the core's one environment (its `passages` and `p` filters among them)
_pages = plugin_pages("human_judging", TEMPLATES)


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# -- the index ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    run: int
    judge: str
    answer: int | None
    correct: bool | None
    probs: list[float] | None
    debiased: bool
    unjudged: bool

    @property
    def p(self) -> float | None:
        """The probability the judge gave the answer it chose."""
        if self.answer not in (1, 2) or not self.probs or len(self.probs) < self.answer:
            return None
        return self.probs[self.answer - 1]

    @property
    def p_correct(self) -> float | None:
        """The probability the judge gave the correct answer."""
        p = self.p
        if p is None or self.correct is None:
            return None
        return p if self.correct else 1 - p

    @property
    def label(self) -> str:
        return self.judge + (" (debiased)" if self.debiased else "")


@dataclass(slots=True)
class Room:
    id: str
    job_key: str
    agent: str
    protocol: str
    task: str
    task_type: str
    question_id: str
    question: str
    assignment: str
    order: str
    runs: list[int] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    #: arguing turns, forced, cut, argument-less (None: no turn flags read yet)
    turns: tuple[int, int, int, int] | None = None
    haystack: str = ""

    @property
    def flags(self) -> list[str]:
        out = []
        if self.turns:
            out += [f for f, n in zip(("forced", "cut", "empty"), self.turns[1:]) if n]
        if any(v.answer is None and not v.unjudged for v in self.verdicts):
            out.append("invalid")
        return out

    def judged(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.unjudged]

    def disagree(self) -> bool:
        return len({v.answer for v in self.judged() if v.answer is not None}) > 1

    def wrong(self, judge: str | None = None) -> bool:
        return any(v.correct is False or (v.answer is None and not v.unjudged)
                   for v in self.verdicts if judge is None or v.judge == judge)

    def share_correct(self) -> float:
        vs = self.judged()
        return sum(bool(v.correct) for v in vs) / len(vs) if vs else -1.0

    def mean_p_correct(self) -> float:
        ps = [p for v in self.verdicts if (p := v.p_correct) is not None]
        return sum(ps) / len(ps) if ps else -1.0


def room_id(job_key: str, agent: str | None) -> str:
    """A room's stable id: its job and agent (a re-judged copy of a transcript is the same room)."""
    return hashlib.sha1(f"{job_key}\0{agent}".encode()).hexdigest()[:16]


def question_key(task: str, question_id: str) -> str:
    return hashlib.sha1(f"{task}\0{question_id}".encode()).hexdigest()[:16]


def _labels(dirs: list[Path]) -> list[str]:
    """Short distinct names for the runs: the folder name, with its parent's where two clash."""
    names = [d.name or str(d) for d in dirs]
    for i, d in enumerate(dirs):
        if names.count(names[i]) > 1:
            names[i] = f"{d.parent.name}/{d.name}"
    return [n if names.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(names)]


def run_dirs(dirs: Iterable[str | Path], depth: int = 2) -> list[Path]:
    """The run directories given: each one as it is, and a folder that is no run but holds runs (a
    folder of runs, an ablation preset's variants) as the runs under it, up to `depth` levels down,
    in name order. A folder holding none stays, so opening it says it is no run directory."""
    out: list[Path] = []
    for d in map(Path, dirs):
        found = [] if (d / "results.sqlite").is_file() or not d.is_dir() else _runs_under(d, depth)
        for run in found or [d]:
            if run not in out:
                out.append(run)
    return out


def _runs_under(folder: Path, depth: int) -> list[Path]:
    runs: list[Path] = []
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return runs
    for child in children:
        if (child / "results.sqlite").is_file():
            runs.append(child)
        elif depth > 1:
            runs.extend(_runs_under(child, depth - 1))
    return runs


class Index:
    """Every room of the given run directories, one short row each, with the verdicts of every judge.
    Rooms are matched across directories by job key and agent; a room whose transcripts differ between
    directories shows each transcript on its page."""

    def __init__(self, dirs: Iterable[str | Path], *, build: bool = True, search: bool = True):
        from human_judging.search import FullText

        #: the rooms' full text (arguments, judge outputs, passages), built after the list's index
        self.fulltext = FullText(room_id)
        self.dirs = run_dirs(dirs)
        if not self.dirs:
            raise BenchError("view needs at least one run directory")
        self.runs: list[ReadOnlyRun] = []
        self.builder: threading.Thread | None = None  # the background build, where the app started one
        try:
            for d in self.dirs:
                self.runs.append(ReadOnlyRun(d))
        except BaseException:
            self.close()
            raise
        self.labels = _labels(self.dirs)
        self.ready = threading.Event()
        self.error: BaseException | None = None
        if build:
            self.build()
            if search:
                self.fulltext.build(self)

    def build(self) -> None:
        """Index every room (the app runs this in a thread and answers the list from `preview` meanwhile)."""
        started = time.perf_counter()
        try:
            self._build()
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.index_seconds = time.perf_counter() - started
            self.ready.set()

    def preview(self, limit: int) -> list[Room]:
        """The first run's first `limit` rooms, read straight from its store (a few ms at any size):
        the list's first page while the index is still being built."""
        run = ReadOnlyRun(self.dirs[0])  # its own connection: the index is reading the other
        try:
            rows = run.summaries(limit)
            flags = run.turn_flags(sorted({r[0] for r in rows}))
            briefs = run.question_briefs(sorted({(r[4], r[5]) for r in rows}))
        finally:
            run.close()
        rooms: dict[tuple[str, str], Room] = {}
        self._add(0, rows, flags, briefs, rooms, {}, set())
        return list(rooms.values())

    @staticmethod
    def _add(i: int, rows: list[tuple], flags: dict, briefs: dict, rooms: dict, siblings: dict, seen: set) -> None:
        for (job_key, judge, agent, protocol, task, qid, assignment, order, answer, correct, p1, p2, debiased,
             unjudged) in rows:
            agent, judge = agent or "", judge or ""
            room = rooms.get((job_key, agent))
            if room is None:
                text, ttype = briefs.get((task, qid), ("", ""))
                room = rooms[(job_key, agent)] = Room(
                    room_id(job_key, agent), job_key, agent, protocol or "", task or "", ttype, qid or "", text,
                    assignment or "", order or "")
                room.haystack = f"{text}\n{qid}\n{job_key}".lower()
            if i not in room.runs:
                room.runs.append(i)
            if (job_key, i) not in seen:
                seen.add((job_key, i))
                sib = (i, protocol, task, qid, assignment, order)
                siblings[sib] = siblings.get(sib, 0) + 1
            room.verdicts.append(Verdict(i, judge, answer if answer in (1, 2) else None,
                                         None if correct is None else bool(correct),
                                         [p1, p2] if _number(p1) and _number(p2) else None, bool(debiased), bool(unjudged)))
            if room.turns is None:
                room.turns = flags.get((job_key, judge))

    def _build(self) -> None:
        rooms: dict[tuple[str, str], Room] = {}
        #: (run, protocol, task, question_id, assignment, order) -> how many jobs share those fields
        self.siblings: dict[tuple, int] = {}
        for i, run in enumerate(self.runs):
            self._add(i, run.summaries(), run.turn_flags(), run.question_briefs(), rooms, self.siblings, set())
        self.rooms = list(rooms.values())
        self.by_id = {r.id: r for r in self.rooms}
        #: (task, question_id) -> its rooms
        self.by_question: dict[tuple[str, str], list[Room]] = {}
        for r in self.rooms:
            self.by_question.setdefault((r.task, r.question_id), []).append(r)
        self._question_keys: dict[str, tuple[str, str]] | None = None  # question_key -> (task, id), on first use
        self.facets = {
            "run": self.labels,
            "task": sorted({r.task for r in self.rooms}),
            "protocol": sorted({r.protocol for r in self.rooms}),
            "assignment": sorted({r.assignment for r in self.rooms if r.assignment}),
            "order": sorted({r.order for r in self.rooms if r.order}),
            "agent": sorted({r.agent for r in self.rooms}),
            "judge": sorted({v.judge for r in self.rooms for v in r.verdicts}),
        }
        self._cache: OrderedDict[tuple, list[Room]] = OrderedDict()

    def close(self) -> None:
        """Close the stores, once the background build (`create_view_app`) is done with them: closing
        one under a running query crashes the process (a server stopped right after it started)."""
        builder = self.builder
        if builder is not None and builder is not threading.current_thread():
            builder.join()
        for run in self.runs:
            run.close()
        self.fulltext.close()

    # -- the list --------------------------------------------------------------------------------
    def select(self, params: dict[str, str]) -> list[Room]:
        """The rooms the filters keep, in the asked order (the last 16 selections are kept, so
        paging through one costs nothing)."""
        key = (*sorted((k, v) for k, v in params.items() if k != "page" and v), ("", self.fulltext.ready.is_set()))
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        rooms = self.rooms
        tests: list[Callable[[Room], bool]] = []
        for facet in FACETS:
            want = params.get(facet)
            if not want:
                continue
            if facet == "run":
                idx = self.labels.index(want) if want in self.labels else -1
                tests.append(lambda r, idx=idx: idx in r.runs)
            elif facet == "judge":
                tests.append(lambda r, want=want: any(v.judge == want for v in r.verdicts))
            else:
                attr = "order" if facet == "order" else facet
                tests.append(lambda r, attr=attr, want=want: getattr(r, attr) == want)
        flag = params.get("flag")
        if flag == "any":
            tests.append(lambda r: bool(r.flags))
        elif flag in FLAGS:
            tests.append(lambda r, flag=flag: flag in r.flags)
        if params.get("wrong"):
            judge = params.get("judge") or None
            tests.append(lambda r: r.wrong(judge))
        if params.get("disagree"):
            tests.append(Room.disagree)
        text = (params.get("q") or "").strip().lower()
        if text:
            found = self.fulltext.search(text)  # None until the full-text index is built
            if found is None:
                tests.append(lambda r: text in r.haystack)
            else:
                hit_rooms, hit_questions = found
                tests.append(lambda r: text in r.haystack or r.id in hit_rooms or (r.task, r.question_id) in hit_questions)
        if tests:
            rooms = [r for r in rooms if all(t(r) for t in tests)]
        sort = params.get("sort") or ""
        name, desc = sort.lstrip("-"), sort.startswith("-")
        if name in SORTS:
            keyf = {"question": lambda r: r.question.lower(), "verdicts": Room.share_correct,
                    "p_correct": Room.mean_p_correct, "flags": lambda r: len(r.flags), "run": lambda r: r.runs[0],
                    }.get(name) or (lambda r, name=name: getattr(r, name))
            rooms = sorted(rooms, key=keyf, reverse=desc)
        elif rooms is self.rooms:
            rooms = list(rooms)
        self._cache[key] = rooms
        while len(self._cache) > 16:
            self._cache.popitem(last=False)
        return rooms

    # -- one room --------------------------------------------------------------------------------
    def room_view(self, room: Room) -> dict[str, Any]:
        """Everything the room page shows, read from the stores now."""
        transcripts: list[dict[str, Any]] = []  # one per distinct transcript
        question = None
        for i in room.runs:
            run = self.runs[i]
            if question is None:
                question = run.question(room.task, room.question_id)
            records = [d for d in run.job_records(room.job_key) if (d.get("agent") or "") == room.agent]
            by_judge: dict[str, list[dict]] = {}
            decisions = []
            for d in records:
                if d["kind"] == "turn":
                    by_judge.setdefault(d["judge"] or "", []).append(d)
                else:
                    decisions.append(d)
            calls = list(run.calls_of(room.protocol, room.task, room.question_id, room.assignment or None,
                                      room.order or None))
            if room.assignment == "" and not calls:
                calls = list(run.calls_of(room.protocol, room.task, room.question_id, "", room.order or None))
            shared = self.siblings.get((i, room.protocol, room.task, room.question_id, room.assignment or None,
                                        room.order or None), 1) > 1
            for d in decisions:
                turns = by_judge.get(d["judge"] or "", [])
                agent_turns = [t for t in turns if t.get("role") != "judge"]
                fp = _fingerprint(agent_turns)
                tr = next((t for t in transcripts if t["fingerprint"] == fp), None)
                if tr is None:
                    tr = {"fingerprint": fp, "turns": [_turn_view(t, calls, shared) for t in agent_turns],
                          "judges": [], "runs": []}
                    transcripts.append(tr)
                if self.labels[i] not in tr["runs"]:
                    tr["runs"].append(self.labels[i])
                tr["judges"].append(_decision_view(d, [t for t in turns if t.get("role") == "judge"], calls, shared,
                                                   agent_turns, self.labels[i]))
        answers = []
        correct_index = None
        for tr in transcripts:
            for j in tr["judges"]:
                if j["correct_index"] in (1, 2) and j["answers"]:
                    correct_index, answers = j["correct_index"], j["answers"]
                    break
            if answers:
                break
        quotes = [(q, ok) for tr in transcripts for t in tr["turns"] for q, ok in t["quotes"]]
        article = getattr(question, "article", None)
        return {"room": room, "question": question, "answers": answers, "correct_index": correct_index,
                "article": _highlight(article, quotes) if article else None,
                "n_verified": sum(ok for _, ok in quotes), "n_unverified": sum(not ok for _, ok in quotes),
                "transcripts": transcripts, "runs": [self.labels[i] for i in room.runs],
                "siblings": self.by_question.get((room.task, room.question_id), []),
                "derived": _derived(room.protocol)}

    def position(self, room: Room, params: dict[str, str]) -> tuple[list[Room], int]:
        """The selection the list's filters make (`select`) and the room's place in it (-1: not in it)."""
        rooms = self.select(params)
        return rooms, next((k for k, r in enumerate(rooms) if r is room), -1)

    def overview(self, i: int) -> dict[str, Any]:
        """Run `i`'s overview: its accuracy per judge · protocol · task cell (computed from the index as
        the end-of-run table computes it: each question's valid answers averaged, then the mean over
        questions with the paper's 95% CI), config, deviations, models with their calls, tokens and
        seconds, and the timings its results.json holds."""
        by_cell: dict[tuple[str, str, str], dict[str, list[int]]] = {}
        counts: dict[tuple[str, str, str], list[int]] = {}  # decisions, invalid
        for room in self.rooms:
            for v in room.verdicts:
                if v.run != i or v.unjudged:
                    continue
                key = (v.label, room.protocol, room.task)
                q = by_cell.setdefault(key, {}).setdefault(room.question_id, [0, 0])
                n = counts.setdefault(key, [0, 0])
                n[0] += 1
                if v.answer is None:
                    n[1] += 1
                elif v.correct is not None:
                    q[0] += bool(v.correct)
                    q[1] += 1
        cells = []
        spent = self.runs[i].cell_calls()
        for (judge, protocol, task), questions in sorted(by_cell.items()):
            m, lo, hi = mean_ci([c / n for c, n in questions.values() if n])
            cells.append({"judge": judge, "protocol": protocol, "task": task, "accuracy": m, "ci_low": lo, "ci_high": hi,
                          "n": sum(1 for _, n in questions.values() if n), "decisions": counts[(judge, protocol, task)][0],
                          "invalid": counts[(judge, protocol, task)][1],
                          "calls": spent.get((protocol, task), (0, 0))[0], "tokens": spent.get((protocol, task), (0, 0))[1],
                          "questions": len(questions),
                          "filters": {"run": self.labels[i], "judge": judge.removesuffix(" (debiased)"),
                                      "protocol": protocol, "task": task}})
        run = self.runs[i]
        config = run.config()
        calls = [{"model": m, "role": r, "calls": n, "prompt_tokens": p, "completion_tokens": c, "seconds": t}
                 for m, r, n, p, c, t in run.call_totals()]
        shown = {k: config.get(k) for k in ("kind", "judge", "judge_debias", "agent", "tasks", "protocols", "limit",
                                             "seed", "data_dir", "source", "commit", "python", "platform")
                 if config.get(k) not in (None, "", [])}
        return {"label": self.labels[i], "dir": str(self.dirs[i]), "cells": cells, "config": shown,
                "options": config.get("options") if isinstance(config.get("options"), dict) else {},
                "versions": config.get("versions") if isinstance(config.get("versions"), dict) else {},
                "deviations": [str(d) for d in config.get("deviations") or []], "calls": calls,
                "totals": {k: sum(c[k] for c in calls) for k in ("calls", "prompt_tokens", "completion_tokens", "seconds")},
                "rooms": sum(1 for r in self.rooms if i in r.runs), "timings": _timings(self.dirs[i]),
                "started": config.get("started")}

    def question_view(self, qkey: str) -> dict[str, Any] | None:
        """One question (by `question_key`) across protocols (rows: each room) and judges (columns)."""
        if self._question_keys is None:
            self._question_keys = {question_key(*k): k for k in self.by_question}
        rooms = self.by_question.get(self._question_keys.get(qkey, ("", "")))
        if not rooms:
            return None
        rooms = sorted(rooms, key=lambda r: (r.protocol, r.assignment, r.order, r.agent))
        judges = sorted({(v.judge, v.run) for r in rooms for v in r.verdicts}, key=lambda jr: (jr[0], jr[1]))
        named = {}
        for j, run in judges:
            clash = sum(1 for jj, _ in judges if jj == j) > 1
            named[(j, run)] = f"{j} · {self.labels[run]}" if clash else j
        grid = [(r, [next((v for v in r.verdicts if (v.judge, v.run) == jr), None) for jr in judges]) for r in rooms]
        return {"rooms": rooms, "judges": [named[jr] for jr in judges], "grid": grid, "first": rooms[0]}


def _derived(protocol: str) -> dict[str, Any] | None:
    """For a protocol judged from other protocols' transcripts (`Protocol.derived_from`, e.g.
    verified_evidence): what its judge reads instead of the turns, so the room says so and shows the
    judge's prompt first. None for any other protocol, or one not installed here."""
    from oversight_bench.api import BenchError as _Error, get_registry

    try:
        p = get_registry().get("protocols", protocol)
    except _Error:
        return None
    sources = tuple(getattr(p, "derived_from", ()) or ())
    return {"from": list(sources), "description": getattr(p, "description", "")} if sources else None


def _timings(directory: Path) -> dict[str, Any] | None:
    """The `timings` of a run's results.json (started, finished, seconds), None where there is no
    readable one (a run in progress, or from before the file existed): untrusted, so bounded and typed."""
    path = directory / "results.json"
    if not path.is_file():
        return None
    try:
        data = load_json_text(read_input_bytes(path, "results.json", 64 << 20), str(path), "results.json")
    except BenchError:
        return None
    t = data.get("timings") if isinstance(data, dict) else None
    if not isinstance(t, dict):
        return None
    out = {k: t[k] for k in ("started", "finished") if isinstance(t.get(k), str)}
    if _number(t.get("seconds")):
        out["seconds"] = float(t["seconds"])
    return out or None


def _fingerprint(turns: list[dict[str, Any]]) -> str:
    said = [(t.get("round"), t.get("speaker"), t.get("shown", t.get("content"))) for t in turns]
    return hashlib.sha1(json.dumps(said, default=str).encode()).hexdigest()


def _call_text(call: dict[str, Any]) -> str:
    """The text of a call's messages and replies, for telling whose call it was."""
    req, resp = call.get("request") or {}, call.get("response") or {}
    parts = []
    for m in req.get("messages") or []:
        c = m.get("content") if isinstance(m, dict) else None
        parts += [c] if isinstance(c, str) else [x.get("text", "") for x in c or [] if isinstance(x, dict)]
    parts += [t for t in (resp.get("texts") or []) if isinstance(t, str)]
    return "\n".join(p for p in parts if isinstance(p, str))


def _mentions(call: dict[str, Any], turns: list[dict[str, Any]]) -> bool:
    """Whether a call's prompt or reply holds one of the room's turns: several rooms sharing a job's
    fields (imported rooms of one question) are told apart so."""
    text = _call_text(call)
    for t in turns:
        for s in (t.get("content"), t.get("shown")):
            if isinstance(s, str) and len(s.strip()) >= 20 and s.strip()[:200] in text:
                return True
    return False


def _messages_view(request: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's chat messages as turns: role, text (a multi-part content's text parts joined) and
    how many parts were not text (images)."""
    out = []
    for m in request.get("messages") or []:
        if not isinstance(m, dict):
            continue
        content, other = m.get("content"), 0
        if isinstance(content, list):
            parts = [x for x in content if isinstance(x, dict)]
            text = "\n".join(str(x["text"]) for x in parts if isinstance(x.get("text"), str))
            other = sum(1 for x in parts if not isinstance(x.get("text"), str))
        else:
            text = _text(content) or ""
        out.append({"role": str(m.get("role") or "?"), "text": redact_text(text), "images": other})
    return out


#: request fields shown beside the messages (the rest stay in the raw JSON)
_PARAMS = ("n", "max_tokens", "temperature", "seed", "stop")


def _tokens(c: dict[str, Any], kind: str) -> str:
    """A call's tokens as the page says them: prompt + completion, or that the backend reported none
    (an in-process probabilities read, or an old record), never a made-up "0 + 0"."""
    p, q = c.get("prompt_tokens"), c.get("completion_tokens")
    if not p and not q:
        return "tokens not reported by the backend"
    if kind == "choice_probs":
        return f"{p or 0} prompt tokens (answer probabilities read, no text generated)"
    return f"{p or 0} + {q or 0} tokens"


def _call_view(c: dict[str, Any]) -> dict[str, Any]:
    resp = c.get("response") or {}
    req = c.get("request") if isinstance(c.get("request"), dict) else {}
    kind = str(req.get("kind") or ("choice_probs" if "probs" in resp and "texts" not in resp else "generate"))
    probs = resp.get("probs") if isinstance(resp.get("probs"), list) else None
    prefix = req.get("prefix")
    return {"tag": c.get("tag") or "", "model": c.get("model") or "", "role": c.get("role") or "",
            "prompt_tokens": c.get("prompt_tokens"), "completion_tokens": c.get("completion_tokens"),
            "tokens": _tokens(c, kind), "kind": kind, "probs": probs,
            "latency_s": c.get("latency_s"), "attempts": c.get("attempts"),
            "messages": _messages_view(req), "prefix": redact_text(prefix) if isinstance(prefix, str) else None,
            "params": {k: req[k] for k in _PARAMS if req.get(k) is not None},
            "request": redact_text(json.dumps(c.get("request"), indent=2, ensure_ascii=False)),
            "texts": [redact_text(t) for t in resp.get("texts") or [] if isinstance(t, str)],
            "response": redact_text(json.dumps(resp, indent=2, ensure_ascii=False))}


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _turn_view(t: dict[str, Any], calls: list[dict[str, Any]], shared: bool) -> dict[str, Any]:
    content = _text(t.get("content")) or ""
    shown = _text(t["shown"]) if "shown" in t else content  # a foreign store's non-text shown as its text
    thinking = split_thinking(content)[0] if content and is_argument(t) else ""
    budget = (t.get("extra") or {}).get("budget") or {}
    marks = []
    if budget.get("forced"):
        marks.append(f"forced: thinking budget spent after {budget.get('thinking_tokens')} tokens, continued from \"Argument:\"")
    if budget.get("cut"):
        marks.append(f"cut at {budget.get('argument_tokens')} tokens")
    notes = (t.get("extra") or {}).get("format") or {}
    if isinstance(notes, dict) and notes.get("truncated_from_words"):
        marks.append(f"cut to the word limit from {notes['truncated_from_words']} words")
    if shown == "[no argument was given in this turn]":
        marks.append("no argument")
    prefix = f"round{t.get('round')}/{t.get('speaker')}"
    model = (t.get("extra") or {}).get("model") or t.get("agent")
    mine = [c for c in calls if c.get("role") == "agent" and str(c.get("tag") or "").split("/")[:2] == prefix.split("/")
            and (model is None or c.get("model") == model) and (not shared or _mentions(c, [t]))]
    return {"round": t.get("round"), "speaker": t.get("speaker") or "", "role": t.get("role") or "",
            "defends": t.get("defends"), "shown": shown, "thinking": thinking.strip(), "marks": marks,
            "budget": budget, "notes": (t.get("extra") or {}).get("format") or {},
            "quotes": _quotes(shown or ""),
            "calls": [_call_view(c) for c in mine]}


def _decision_view(d: dict[str, Any], judge_turns: list[dict], calls: list[dict], shared: bool,
                   agent_turns: list[dict], run_label: str) -> dict[str, Any]:
    judge = d.get("judge") or ""
    extra = d.get("extra") or {}
    mine = [c for c in calls if c.get("role") == "judge" and c.get("model") == judge
            and (not shared or not agent_turns or _mentions(c, agent_turns))]
    probs = d.get("probs")
    return {"judge": judge, "run": run_label, "raw": d.get("raw") or "", "answer": d.get("answer"),
            "correct": d.get("correct"), "unjudged": bool(d.get("unjudged")),
            "probs": probs if isinstance(probs, list) else None, "debiased": bool(extra.get("debiased")),
            "orders": extra.get("orders") if isinstance(extra.get("orders"), list) else [],
            "correct_index": d.get("correct_index"), "answers": d.get("answers") or [],
            "questions": [_question_view(t, mine) for t in judge_turns],
            "calls": [_call_view(c) for c in mine],
            "tokens": sum((c.get("prompt_tokens") or 0) + (c.get("completion_tokens") or 0) for c in mine),
            "from_probs": extra.get("answer_from") == "probs" or (not d.get("raw") and isinstance(probs, list)),
            "latency": sum(c.get("latency_s") or 0 for c in mine)}


def _question_view(turn: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A judge turn as the page labels it: who asked (an imported room keeps its source's live judge,
    whose questions the debaters answer) and whether this judge's prompt showed it (None: no call)."""
    extra = turn.get("extra") if isinstance(turn.get("extra"), dict) else {}
    text = turn.get("shown", turn.get("content"))
    return {"text": text, "source": bool(extra.get("human")),
            "in_prompt": any(_mentions(c, [turn]) for c in calls) if calls else None}


def _highlight(article: str, quotes: list[tuple[str, bool]]) -> Markup:
    """The passage escaped, with every span a turn quoted (a verified quote) marked. A quote is found
    with any run of whitespace standing for any other and straight quote marks for curly ones (the
    importers verify quotes so: a story's hard line breaks do not make a faithful quote unverified),
    and without a leading or trailing ellipsis. Both sides are normalised once and searched with
    str.find (linear time), so a long quote against an article of near misses stays fast."""
    flat, original = _normalised(article)
    spans = []
    for text, ok in quotes:
        words = text.strip().strip(".…").strip().split()
        needle = " ".join(words).translate(_STRAIGHT)
        if not ok or len(needle) < 4:
            continue
        at = flat.find(needle)
        while at >= 0:
            spans.append((original(at), original(at + len(needle) - 1) + 1))
            at = flat.find(needle, at + len(needle))
    out, pos = [], 0
    for s, e in sorted(spans):
        if e <= pos:
            continue
        s = max(s, pos)
        out += [html.escape(article[pos:s]), '<mark class="quoted" title="quoted by a turn (verified)">',
                html.escape(article[s:e]), "</mark>"]
        pos = e
    out.append(html.escape(article[pos:]))
    return Markup("".join(out))


_STRAIGHT = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})


def _normalised(text: str) -> tuple[str, Callable[[int], int]]:
    """`text` with each run of whitespace as one space and curly quote marks straight, and a map from
    an index in it back to the index in `text` (only runs of two or more characters shift it)."""
    at, shift, total = [], [], 0
    for m in re.finditer(r"\s{2,}", text):
        at.append(m.start() - total + 1)
        total += m.end() - m.start() - 1
        shift.append(total)

    def original(i: int) -> int:
        k = bisect.bisect_right(at, i)
        return i + (shift[k - 1] if k else 0)

    return re.sub(r"\s+", " ", text).translate(_STRAIGHT), original


# -- pages -------------------------------------------------------------------------------------------


class Links:
    """Where the pages link: the app's routes, or the static export's relative files."""

    def __init__(self, static: bool = False, depth: int = 0, back: dict[str, str] | None = None):
        self.static, self.up = static, "../" * depth
        #: a page the static export links back to (the leaderboard it was exported for): {"link", "title"}
        self.back = back

    def back_link(self) -> str | None:
        return self.up + self.back["link"] if self.static and self.back else None

    def style(self) -> str:
        return self.up + "view.css" if self.static else "/view.css"

    def home(self) -> str:
        return self.up + "index.html" if self.static else "/"

    def room(self, room: Room) -> str:
        return f"{self.up}rooms/{room.id}.html" if self.static else f"/room/{room.id}"

    def run(self, i: int) -> str:
        """Run `i`'s overview page."""
        return f"{self.up}runs/{i + 1}.html" if self.static else f"/run/{i + 1}"

    def question(self, room: Room) -> str:
        key = question_key(room.task, room.question_id)
        return f"{self.up}questions/{key}.html" if self.static else f"/question/{key}"


def render(name: str, **ctx: Any) -> str:
    return redact_text(_pages.render(f"human_judging/{name}", flags_help=FLAG_HELP, **ctx))


def list_context(index: Index, params: dict[str, str], page_size: int = PAGE_SIZE) -> dict[str, Any]:
    started = time.perf_counter()
    rooms = index.select(params)
    n_pages = max(1, -(-len(rooms) // page_size))
    try:
        page = min(max(1, int(params.get("page") or 1)), n_pages)
    except ValueError:
        page = 1
    shown = rooms[(page - 1) * page_size: page * page_size]
    kept = {k: v for k, v in params.items() if v and k != "page"}

    def qs(**changes: Any) -> str:
        merged = {**kept, **{k: v for k, v in changes.items()}}
        return "?" + urlencode({k: v for k, v in merged.items() if v not in (None, "")})

    #: a room's link carries the list's filters, so its page steps through this selection
    room_qs = ("?" + urlencode(kept)) if kept else ""

    def sort_link(col: str) -> str:
        cur = kept.get("sort", "")
        return qs(sort=f"-{col}" if cur == col else col, page=None)

    return {"rooms": shown, "n": len(rooms), "total": len(index.rooms), "page": page, "n_pages": n_pages,
            "fulltext": index.fulltext.ready.is_set() and index.fulltext.error is None,
            "params": kept, "facets": index.facets, "qs": qs, "sort_link": sort_link, "labels": index.labels,
            "seconds": time.perf_counter() - started, "flags": FLAGS, "room_qs": room_qs}


#: the query parameters of the list (its filters and sort) that a room's page keeps
LIST_PARAMS = (*FACETS, "flag", "wrong", "disagree", "q", "sort")


def _list_params(request, *more: str) -> dict[str, str]:
    return {k: v for k, v in request.query_params.items() if k in (*LIST_PARAMS, *more) and v}


def room_nav(index: Index, room: Room, params: dict[str, str], page_size: int = PAGE_SIZE) -> dict[str, Any]:
    """A room's previous and next room in the list the filters make, and the link back to the page
    of that list that holds it; the filters travel in every link. A room the filters leave out (an
    old link) steps through the whole list from nowhere: back goes to the filtered list."""
    rooms, k = index.position(room, params)
    qs = urlencode(params)
    suffix = f"?{qs}" if qs else ""
    page = k // page_size + 1 if k >= 0 else 1
    back = "/?" + urlencode({**params, **({"page": page} if page > 1 else {})}) if (params or page > 1) else "/"
    return {"prev": f"/room/{rooms[k - 1].id}{suffix}" if k > 0 else None,
            "next": f"/room/{rooms[k + 1].id}{suffix}" if 0 <= k < len(rooms) - 1 else None,
            "back": back, "at": k + 1, "of": len(rooms), "filtered": bool(params)}


def _build_quietly(index: Index) -> None:
    try:
        index.build()
        print(f"indexed {len(index.rooms)} rooms of {len(index.dirs)} run(s) in {index.index_seconds:.2f} s (read-only)",
              file=sys.stderr)
        index.fulltext.build(index)
        ft = index.fulltext
        print(f"full-text search over {ft.rows} texts ready in {ft.seconds:.2f} s" if ft.error is None else
              f"view: full-text search unavailable ({ft.error}); the text filter searches questions, ids and job keys",
              file=sys.stderr)
    except BaseException as exc:  # noqa: BLE001 - kept in index.error and shown on the list page
        print(f"view: cannot index the runs: {exc}", file=sys.stderr)


# -- the app -----------------------------------------------------------------------------------------


VIEW_TOKEN_COOKIE = "oversight_bench_view_token"


class TokenGate:
    """ASGI middleware: every request must carry the viewer's token (constant-time comparison); the
    link `?token=...` sets it as a cookie and drops it from the address bar."""

    def __init__(self, app, token: str):
        self.app, self.token = app, token

    async def __call__(self, scope, receive, send):
        import secrets
        from urllib.parse import urlencode

        from starlette.requests import Request
        from starlette.responses import PlainTextResponse, RedirectResponse

        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        given = request.query_params.get("token")
        if given is not None and secrets.compare_digest(given.encode(), self.token.encode()):
            rest = {k: v for k, v in request.query_params.items() if k != "token"}
            resp = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
            resp.set_cookie(VIEW_TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
            return await resp(scope, receive, send)
        auth = request.headers.get("authorization", "")
        candidates = [request.cookies.get(VIEW_TOKEN_COOKIE, ""), auth[7:] if auth.lower().startswith("bearer ") else ""]
        if not any(c and secrets.compare_digest(c.encode(), self.token.encode()) for c in candidates):
            return await PlainTextResponse("forbidden: the viewer needs its token (open the link it printed)",
                                           status_code=403)(scope, receive, send)
        return await self.app(scope, receive, send)



def create_view_app(index: Index, *, token: str | None = None, allowed_hosts: list[str] | None = None):
    """The ASGI app over `index`: GET pages only, behind the same token, host and header rules as `serve`."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response
    from starlette.concurrency import run_in_threadpool
    from starlette.routing import Route

    from human_judging.app import LOOPBACK_HOSTS, SecurityHeaders

    from human_judging.live import REFRESH_S, LiveIndex

    links = Links()
    if not index.ready.is_set():
        index.builder = threading.Thread(target=_build_quietly, args=(index,), name="oversight-bench-view-index", daemon=True)
        index.builder.start()
    #: the index the pages read, rebuilt while a run is in progress (`human_judging.live`)
    live = index.live = LiveIndex(index)

    def page(handler):
        """A page read from the current index, kept open while it is read; a look at the runs first."""
        async def answer(request: Request) -> Response:
            live.poll()
            with live.use() as current:
                return await handler(request, current)
        return answer

    def live_note() -> dict[str, Any] | None:
        """For a run in progress: the seconds its list and overview wait before reloading, and when
        the index they show was built."""
        if not live.in_progress():
            return None
        return {"refresh": REFRESH_S, "built": time.strftime("%H:%M:%S", time.localtime(live.built_at))}

    @page
    async def listing(request: Request, index: Index) -> Response:
        if not index.ready.is_set():
            rooms = await run_in_threadpool(index.preview, PAGE_SIZE)  # its own connection
            return HTMLResponse(render("viewer/list.html", links=links, static=False, indexing=True, rooms=rooms,
                                       n=len(rooms), total=None, page=1, n_pages=1, params={}, labels=index.labels,
                                       flags=FLAGS, facets={}, seconds=0))
        if index.error is not None:
            return HTMLResponse(render("viewer/missing.html", links=links, what=f"index ({index.error})"), status_code=500)
        params = _list_params(request, "page")
        return HTMLResponse(render("viewer/list.html", links=links, static=False, live=live_note(),
                                   **list_context(index, params)))

    # a room, run or question page waits for the index and reads the stores: in a worker thread, so
    # the event loop (and with it the list, answered from `preview` while indexing) is never held up
    reading = threading.Lock()  # the stores' connections are read by one page at a time, as before

    def room_sync(index: Index, room_id: str, params: dict[str, str]) -> Response:
        index.ready.wait()
        room = index.by_id.get(room_id) if index.error is None else None
        if room is None:
            return HTMLResponse(render("viewer/missing.html", links=links, what="room"), status_code=404)
        with reading:
            view = index.room_view(room)
        return HTMLResponse(render("viewer/room.html", links=links, v=view, nav=room_nav(index, room, params)))

    def run_sync(index: Index, n: str) -> Response:
        index.ready.wait()
        try:
            i = int(n) - 1
        except ValueError:
            i = -1
        if index.error is not None or not 0 <= i < len(index.runs):
            return HTMLResponse(render("viewer/missing.html", links=links, what="run"), status_code=404)
        with reading:
            overview = index.overview(i)
        return HTMLResponse(render("viewer/run.html", links=links, o=overview, static=False, live=live_note()))

    def question_sync(index: Index, key: str) -> Response:
        index.ready.wait()
        with reading:
            view = index.question_view(key) if index.error is None else None
        if view is None:
            return HTMLResponse(render("viewer/missing.html", links=links, what="question"), status_code=404)
        return HTMLResponse(render("viewer/question.html", links=links, v=view))

    @page
    async def room_page(request: Request, index: Index) -> Response:
        return await run_in_threadpool(room_sync, index, request.path_params["room"], _list_params(request))

    @page
    async def question_page(request: Request, index: Index) -> Response:
        return await run_in_threadpool(question_sync, index, request.path_params["key"])

    @page
    async def run_page(request: Request, index: Index) -> Response:
        return await run_in_threadpool(run_sync, index, request.path_params["n"])

    async def style(request: Request) -> Response:
        return Response((TEMPLATES / "viewer" / "view.css").read_text(), media_type="text/css")

    routes = [Route("/", listing), Route("/room/{room}", room_page), Route("/question/{key}", question_page),
              Route("/run/{n}", run_page), Route("/view.css", style)]
    middleware = [Middleware(SecurityHeaders)]
    if token:
        middleware.append(Middleware(TokenGate, token=token))
    middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or LOOPBACK_HOSTS))
    return Starlette(routes=routes, middleware=middleware)


# -- the static export -------------------------------------------------------------------------------


BACK_LINK = re.compile(r"^(?!/)(?!.*//)[A-Za-z0-9._/-]{1,200}$")


def read_cells(path: str | Path) -> dict[str, dict[str, Any]]:
    """A cells file: {"cells": {ID: {"title": TEXT, "decisions": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}}.
    A relative RUN_DIR is read relative to the cells file's folder where that folder holds it (the
    leaderboard writes them so: a committed file names no machine's paths), else to the current one."""
    return read_cells_file(path)[0]


def read_cells_file(path: str | Path) -> tuple[dict[str, dict[str, Any]], dict[str, str] | None]:
    """`read_cells`, and the file's optional "back": {"link": PATH, "title": TEXT}, a page the exported
    pages link back to (PATH relative to the export folder, e.g. the leaderboard's ../index.html).
    The file is untrusted input: a regular file of at most MAX_CELLS_BYTES, JSON read with bounded
    nesting, and every field of the type named (else one BenchError naming the cell and field)."""
    p = Path(path)
    shape = "a JSON file of cells {\"cells\": {ID: {\"title\": TEXT, \"decisions\": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}}"
    data = load_json_text(read_input_bytes(p, "--cells", MAX_CELLS_BYTES), f"--cells {p}", shape)
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, dict):
        raise BenchError(f"--cells {p}: expected {shape}")
    for cid, cell in cells.items():
        if not CELL_ID.match(cid):
            raise BenchError(f"--cells {p}: cell id {_shown(cid)} is not a plain name; expected letters, digits, _ . - "
                             "(at most 120)")
        if not isinstance(cell, dict):
            raise BenchError(f"--cells {p}: cell {cid}: expected {{\"title\": TEXT, \"decisions\": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}, "
                             f"got {_json_type(cell)}")
        title = cell.get("title")
        if title is not None and not _utf8_text(title):
            raise BenchError(f"--cells {p}: cell {cid}: \"title\" is {_json_type(title)}; expected text (UTF-8)")
        ds = cell.get("decisions")
        if not isinstance(ds, list):
            raise BenchError(f"--cells {p}: cell {cid}: \"decisions\" is {_json_type(ds)}; "
                             "expected a list [[RUN_DIR, JUDGE, JOB_KEY], ...]")
        for n, d in enumerate(ds):
            if not (isinstance(d, list) and len(d) == 3 and all(_utf8_text(x) and x for x in d)):
                raise BenchError(f"--cells {p}: cell {cid}: decision #{n + 1} is {_shown(d)}; expected "
                                 "[RUN_DIR, JUDGE, JOB_KEY], three non-empty strings")
    base = p.parent
    for cell in cells.values():
        cell["decisions"] = [[_run_path(run_dir, base), judge, job] for run_dir, judge, job in cell["decisions"]]
    back = data.get("back")
    if back is not None:
        if not (isinstance(back, dict) and isinstance(back.get("link"), str) and _back_ok(back["link"])
                and (back.get("title") is None or _utf8_text(back.get("title")))):
            raise BenchError(f"--cells {p}: \"back\" must be {{\"link\": a relative path (letters, digits, . _ - /), "
                             "\"title\": TEXT}")
        back = {"link": back["link"], "title": back.get("title") or "back"}
    return cells, back


#: the largest cells file read (the committed leaderboard's rooms-cells.json, 46 cells, is 2.2 MB)
MAX_CELLS_BYTES = 64 << 20


def _utf8_text(x: Any) -> bool:
    """A string that can be written as UTF-8 (JSON's \\ud800 escapes make lone surrogates)."""
    if not isinstance(x, str):
        return False
    try:
        x.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json_type(x: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(x), type(x).__name__)


def _shown(x: Any) -> str:
    """A short, printable form of an untrusted value for an error line."""
    text = json.dumps(x, ensure_ascii=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _back_ok(link: str) -> bool:
    """A relative path: letters, digits, . _ - /; ".." only as leading steps up; no scheme, no host."""
    rest = link
    while rest.startswith("../"):
        rest = rest[3:]
    return bool(BACK_LINK.match(link)) and bool(rest) and ".." not in rest.split("/")


def _run_path(run_dir: str, base: Path) -> str:
    """A cells file's RUN_DIR: a relative one against the cells file's folder where a run is there."""
    path = Path(run_dir)
    if not path.is_absolute() and (base / path).is_dir():
        return str(base / path)
    return run_dir


def default_cells(index: Index) -> dict[str, dict[str, Any]]:
    """One cell per judge · protocol · task: the rooms that judge judged there."""
    cells: dict[str, dict[str, Any]] = {}
    for room in index.rooms:
        for v in room.verdicts:
            if v.unjudged:
                continue
            title = f"{v.judge} · {room.protocol} · {room.task}"
            cid = re.sub(r"[^A-Za-z0-9_.-]+", "-", title).strip("-")[:80] + "-" + hashlib.sha1(title.encode()).hexdigest()[:8]
            cell = cells.setdefault(cid, {"title": title, "decisions": []})
            cell["decisions"].append([str(index.dirs[v.run]), v.judge, room.job_key])
    return cells


#: the names an export writes at its top: an earlier export's folder holds only these
EXPORTED = re.compile(r"^(view\.css|index\.html|list-[0-9]+\.html|rooms|runs|questions|cells|cells\.json)$")


def _exported(name: str) -> bool:
    return bool(EXPORTED.match(name))


def _is_manifest(path: Path) -> bool:
    """Whether `path` is the cells.json an export writes ({"cells": {ID: {...}}}), not a user's file of that name."""
    try:
        data = load_json_text(read_input_bytes(path, "--export", MAX_CELLS_BYTES), str(path), "an export's cells.json")
    except BenchError:
        return False
    return isinstance(data, dict) and isinstance(data.get("cells"), dict) and all(
        CELL_ID.match(k) and isinstance(v, dict) for k, v in data["cells"].items())


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def export_static(dirs: Iterable[str | Path], output: str | Path, *, cells: dict[str, dict[str, Any]] | None = None,
                  page_size: int = EXPORT_PAGE_SIZE, index: Index | None = None,
                  back: dict[str, str] | None = None) -> dict[str, Any]:
    """Write the viewer's pages as static files into `output`: index.html (+ list-N.html), rooms/ID.html,
    questions/KEY.html, cells/CELL/index.html (+ page-N.html) for each cell (`cells`, else one per
    judge · protocol · task) and cells.json ({cell: {title, link, rooms, pages}}). Returns cells.json's
    content. Never writes inside a run directory. With `back` ({"link", "title"}), every page links
    back to that page (a path relative to `output`). The same runs and cells export to the same bytes."""
    own = index is None
    index = index or Index(dirs, search=False)  # static pages search nothing
    try:
        out = Path(output)
        refuse_output_inside(out, index.dirs, "view", flag="--export")
        refuse_foreign_output(out, "view --export", _exported, "cells.json", flag="--export", what="export",
                              marker_ok=_is_manifest)
        _clear_export(out)
        try:
            for sub in ("rooms", "questions", "cells"):
                (out / sub).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BenchError(f"cannot create export folder {out}: {exc.strerror}") from None
        _write(out / "view.css", (TEMPLATES / "viewer" / "view.css").read_text())
        _write_list(index, index.rooms, out, "index.html", lambda n: "index.html" if n == 1 else f"list-{n}.html",
                    0, "all rooms", page_size, back=back)
        for room in index.rooms:
            _write(out / "rooms" / f"{room.id}.html", render("viewer/room.html", links=Links(True, 1, back), v=index.room_view(room)))
        (out / "runs").mkdir(exist_ok=True)
        for i in range(len(index.runs)):
            _write(out / "runs" / f"{i + 1}.html", render("viewer/run.html", links=Links(True, 1, back),
                                                          o=index.overview(i), static=True))
        for task, qid in index.by_question:
            key = question_key(task, qid)
            _write(out / "questions" / f"{key}.html",
                   render("viewer/question.html", links=Links(True, 1, back), v=index.question_view(key)))
        cells = default_cells(index) if cells is None else cells
        where = {str(d): i for i, d in enumerate(index.dirs)}
        where.update({str(d.resolve()): i for i, d in enumerate(index.dirs)})
        by_decision = {(v.run, v.judge, r.job_key): r for r in index.rooms for v in r.verdicts}
        manifest: dict[str, Any] = {}
        for cid, cell in cells.items():
            rooms, missing, seen = [], 0, set()
            for run_dir, judge, job_key in cell["decisions"]:
                i = where.get(str(run_dir), where.get(str(Path(run_dir).resolve())))
                room = None if i is None else (by_decision.get((i, judge, job_key))  # a table's "X (debiased)" label too
                                               or by_decision.get((i, str(judge).removesuffix(" (debiased)"), job_key)))
                if room is None:
                    missing += 1
                elif room.id not in seen:
                    seen.add(room.id)
                    rooms.append(room)
            folder = out / "cells" / cid
            folder.mkdir(parents=True, exist_ok=True)
            pages = _write_list(index, rooms, folder, "index.html", lambda n: "index.html" if n == 1 else f"page-{n}.html",
                                2, str(cell.get("title") or cid), page_size, missing=missing, back=back)
            manifest[cid] = {"title": cell.get("title") or cid, "link": f"cells/{cid}/index.html", "rooms": len(rooms),
                             "missing": missing, "pages": [f"cells/{cid}/{p}" for p in pages]}
        _write(out / "cells.json", json.dumps({"cells": manifest}, indent=1, ensure_ascii=False))
        return manifest
    finally:
        if own:
            index.close()


#: the pages an export writes inside its folders, by folder (cells/<id>/ holds index.html and page-N.html)
_PAGES = {"rooms": re.compile(r"^[0-9a-f]{16}\.html$"), "questions": re.compile(r"^[0-9a-f]{16}\.html$"),
          "runs": re.compile(r"^[0-9]+\.html$")}
_CELL_PAGE = re.compile(r"^(index|page-[0-9]+)\.html$")


def _clear_export(out: Path) -> None:
    """An earlier export's pages (its folder passed `refuse_foreign_output`: it holds cells.json and
    only an export's names), so that no page of a room or cell this export lacks stays behind. Only
    files named as an export names them go; any other file, and the folder holding it, stays."""
    if not (out / "cells.json").is_file():
        return
    for name in out.iterdir():
        if re.match(r"^list-[0-9]+\.html$", name.name) and name.is_file():
            name.unlink()
    for sub, pattern in _PAGES.items():
        folder = out / sub
        if folder.is_dir() and not folder.is_symlink():
            for page in folder.iterdir():
                if pattern.match(page.name) and page.is_file() and not page.is_symlink():
                    page.unlink()
    cells = out / "cells"
    if cells.is_dir() and not cells.is_symlink():
        for cell in cells.iterdir():
            if cell.is_dir() and not cell.is_symlink() and CELL_ID.match(cell.name):
                for page in cell.iterdir():
                    if _CELL_PAGE.match(page.name) and page.is_file() and not page.is_symlink():
                        page.unlink()
                if not any(cell.iterdir()):
                    cell.rmdir()


def write_room_pages(run_dirs: list[str], folder: Path, cells_file: Path) -> dict[str, Any]:
    """The `register_room_writers` hook's writer: a leaderboard's room pages, as `view RUN_DIRS --export
    FOLDER --cells CELLS_FILE` writes them (the cells file's `back` link included)."""
    cells, back = read_cells_file(cells_file)
    return export_static(run_dirs, folder, cells=cells, back=back)


def _write_list(index: Index, rooms: list[Room], folder: Path, first: str, name_of: Callable[[int], str], depth: int,
                title: str, page_size: int, missing: int = 0, back: dict[str, str] | None = None) -> list[str]:
    n_pages = max(1, -(-len(rooms) // page_size))
    names = [name_of(n) for n in range(1, n_pages + 1)]
    for n in range(1, n_pages + 1):
        ctx = {"rooms": rooms[(n - 1) * page_size: n * page_size], "n": len(rooms), "total": len(index.rooms),
               "page": n, "n_pages": n_pages, "labels": index.labels, "params": {}, "flags": FLAGS,
               "page_link": lambda k: names[k - 1], "title": title, "missing": missing}
        _write(folder / names[n - 1], render("viewer/list.html", links=Links(True, depth, back), static=True, **ctx))
    return names
