"""The viewer's index of rooms (`Index`): one short row per room (a job and its agent, with every
judge's verdict), built from `RunReader.summaries` (a few JSON fields read in SQLite), filtered,
sorted and paged in memory so that 100,000 records stay browsable; a room, a run's overview and a
question are read from their store only when opened. The stores are opened strictly read-only."""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from oversight_bench.api import (BenchError, DecisionRecord, RunReader, TurnRecord, is_run_dir, load_json_text, mean_ci,
                                 read_input_bytes)

from human_judging.view_models import _decision_view, _highlight, _turn_view

FLAGS = ("forced", "cut", "empty", "invalid")


#: filters that pick one value of a column
FACETS = ("run", "task", "protocol", "assignment", "order", "agent", "judge")


SORTS = ("question", "task", "protocol", "assignment", "order", "agent", "verdicts", "p_correct", "flags", "run")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


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
        found = [] if is_run_dir(d) or not d.is_dir() else _runs_under(d, depth)
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
        if is_run_dir(child):
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
        self.runs: list[RunReader] = []
        self.builder: threading.Thread | None = None  # the background build, where the app started one
        try:
            for d in self.dirs:
                self.runs.append(RunReader(d))
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
        run = RunReader(self.dirs[0])  # its own connection: the index is reading the other
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
            records = [d for d in run.job_records(room.job_key) if (d.agent or "") == room.agent]
            by_judge: dict[str, list[TurnRecord]] = {}
            decisions: list[DecisionRecord] = []
            for d in records:
                if isinstance(d, TurnRecord):
                    by_judge.setdefault(d.judge or "", []).append(d)
                else:
                    decisions.append(d)
            calls = list(run.calls_of(room.protocol, room.task, room.question_id, room.assignment or None,
                                      room.order or None))
            if room.assignment == "" and not calls:
                calls = list(run.calls_of(room.protocol, room.task, room.question_id, "", room.order or None))
            shared = self.siblings.get((i, room.protocol, room.task, room.question_id, room.assignment or None,
                                        room.order or None), 1) > 1
            for d in decisions:
                turns = by_judge.get(d.judge or "", [])
                agent_turns = [t for t in turns if t.role != "judge"]
                fp = _fingerprint(agent_turns)
                tr = next((t for t in transcripts if t["fingerprint"] == fp), None)
                if tr is None:
                    tr = {"fingerprint": fp, "turns": [_turn_view(t, calls, shared) for t in agent_turns],
                          "judges": [], "runs": []}
                    transcripts.append(tr)
                if self.labels[i] not in tr["runs"]:
                    tr["runs"].append(self.labels[i])
                tr["judges"].append(_decision_view(d, [t for t in turns if t.role == "judge"], calls, shared,
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
        config = run.identity().stored()  # config.json as stored (its keys shown as they are)
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


def _fingerprint(turns: list[TurnRecord]) -> str:
    said = [(t.round, t.speaker, t.shown_text) for t in turns]
    return hashlib.sha1(json.dumps(said, default=str).encode()).hexdigest()
