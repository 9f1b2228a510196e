"""`oversight-bench export --inspect DIR`: a run as inspect_ai eval logs, so `inspect view` opens it.

inspect's log has one task and one model, so each judge · protocol · task cell of the run is one log:
task = `<task>/<protocol>`, model = the judge, one sample per judged room (id = the job key), the
judge's decision as the sample's score ("C", "I", or "N" for an answer that did not parse), the
messages the judge's call carried (or, for a judge without a stored call, the turns it was shown)
and its reply, and tokens per model. The cell's metrics are the ones `results.json` holds (accuracy
over valid answers per question with the paper's 95% CI, n, invalid answers), not inspect's own
mean, so the two agree. The logs are built with inspect_ai's own pydantic types and written by its
own writer: it is needed only here (`pip install 'oversight-bench[inspect]'`), never by the core.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from oversight_bench.errors import BenchError
from oversight_bench.redact import redact_text
from oversight_bench.rundir.reader import RunReader
from oversight_bench.rundir.records import Call, Decision, RunIdentity, Turn
from oversight_bench.rundir.folders import refuse_foreign_output, refuse_output_inside
from oversight_bench.yamlio import strict_json

#: the export's list of the logs it wrote: a later export replaces those, and nothing else
MARKER = "oversight-bench-inspect.json"
_NO_CALL = "(no stored judge call: the turns the judge was shown)"


def _inspect():
    try:
        import inspect_ai.log as log
        import inspect_ai.model as model
        import inspect_ai.scorer as scorer
    except ImportError:
        raise BenchError("export --inspect needs inspect_ai, which is not installed: pip install "
                         "'oversight-bench[inspect]' (or inspect-ai)") from None
    return log, model, scorer


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:60] or "x"


def _value(d: Decision) -> str:
    if d.answer is None:
        return "N"  # inspect's NOANSWER: counted as invalid, never guessed
    return "C" if d.correct else "I"


def _chat(m, messages: list[dict[str, Any]]) -> list[Any]:
    """A stored request's messages as inspect chat messages (text parts only; images counted)."""
    out = []
    kinds = {"system": m.ChatMessageSystem, "user": m.ChatMessageUser, "assistant": m.ChatMessageAssistant}
    for msg in messages:
        if not isinstance(msg, dict):
            continue
        content = msg.get("content")
        if isinstance(content, list):
            parts = [x for x in content if isinstance(x, dict)]
            text = "\n".join(str(x["text"]) for x in parts if isinstance(x.get("text"), str))
            others = sum(1 for x in parts if not isinstance(x.get("text"), str))
            if others:
                text += f"\n[{others} image part(s) not exported]"
        else:
            text = content if isinstance(content, str) else str(content or "")
        out.append(kinds.get(str(msg.get("role")), m.ChatMessageUser)(content=redact_text(text)))
    return out


def _mentions(call: Call, turns: list[Turn]) -> bool:
    """Whether a call's prompt holds one of the room's turns (rooms sharing a job's fields)."""
    text = "\n".join(str(x.get("content")) for x in call.request.messages or [] if isinstance(x, dict))
    return any(isinstance(t.shown_text, str) and len(t.shown_text.strip()) >= 20 and t.shown_text.strip()[:200] in text
               for t in turns)


class _Cell:
    def __init__(self, judge: str, protocol: str, task: str):
        self.judge, self.protocol, self.task = judge, protocol, task
        self.samples: list[Any] = []
        self.usage: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.ids: set[str] = set()


def export_inspect(directory: str, output: str, summarize: Callable[[RunReader], list[dict[str, Any]]],
                   log: Callable[[str], None] = lambda m: None) -> list[Path]:
    """Write one inspect eval log per judge · protocol · task cell of `directory` into `output` (new,
    empty, or an earlier export's logs only); returns the files written. `summarize`: the end-of-run
    rows of a store (`end_of_run.summarize`, handed in: the storage layer imports no analysis)."""
    ilog, imodel, iscorer = _inspect()
    refuse_output_inside(output, [directory], "export", flag="--inspect")
    earlier = _earlier(Path(output))
    refuse_foreign_output(output, "export --inspect", lambda n: n == MARKER or n in earlier, MARKER,
                          flag="--inspect", what="export --inspect")
    from oversight_bench import __version__

    with RunReader(directory, check_pages=True) as store:
        identity = store.identity()
        questions = store.questions()
        cells = _cells(store, questions, imodel, iscorer, ilog)
        summary = {(r["judge"], r["protocol"], r["task"]): r for r in summarize(store)}
        agent_usage = store.agent_usage()
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    for name in earlier:  # an earlier export's logs: this one replaces them whole
        (out / name).unlink(missing_ok=True)
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    stamp = created.replace(":", "-")
    written = []
    for key, cell in sorted(cells.items()):
        row = summary.get(key) or {}
        for model, (p, c) in agent_usage.get((cell.protocol, cell.task), {}).items():
            cell.usage[model][0] += p
            cell.usage[model][1] += c
        eval_log = _eval_log(ilog, imodel, cell, row, identity, directory, created, __version__)
        run_id = hashlib.sha1(f"{directory}|{key}".encode()).hexdigest()[:12]
        path = out / f"{stamp}_{_slug(cell.task + '-' + cell.protocol)}_{run_id}.eval"
        ilog.write_eval_log(eval_log, str(path))
        written.append(path)
        log(f"{path}: {cell.judge} · {cell.protocol} · {cell.task}, {len(cell.samples)} samples")
    (out / MARKER).write_text(json.dumps({"run": str(directory), "logs": [p.name for p in written]}, indent=1) + "\n")
    return written


def _earlier(out: Path) -> set[str]:
    """The log names an earlier export listed in its marker (none where there is no readable one)."""
    try:
        logs = strict_json((out / MARKER).read_text(encoding="utf-8")).get("logs")
    except (OSError, ValueError, AttributeError):
        return set()
    return {n for n in logs if isinstance(n, str) and "/" not in n and n.endswith(".eval")} if isinstance(logs, list) else set()


def _cells(store: RunReader, questions, imodel, iscorer, ilog) -> dict[tuple[str, str, str], _Cell]:
    cells: dict[tuple[str, str, str], _Cell] = {}
    turns: dict[tuple[str, str], list[Turn]] = defaultdict(list)
    for r in store.records():
        key = (r.job_key, r.judge or "")
        if isinstance(r, Turn):
            turns[key].append(r)
            continue
        if r.unjudged:
            turns.pop(key, None)
            continue
        ck = (r.judge or "", r.protocol or "", r.task or "")
        cell = cells.setdefault(ck, _Cell(*ck))
        cell.samples.append(_sample(store, r, turns.pop(key, []), questions, imodel, iscorer, ilog, cell))
    return cells


def _sample(store: RunReader, d: Decision, turns: list[Turn], questions, m, scorer, ilog, cell: _Cell):
    q = questions.get((d.task, d.question_id))
    answers = [str(a) for a in d.answers or []]
    if not answers and q is not None and d.answer_order in ("correct_first", "correct_second"):
        answers = list(q.answers(d.answer_order))
    ci = d.correct_index
    agent_turns = [t for t in turns if t.role != "judge"]
    calls = store.judge_calls(d)
    if len(calls) > 1 and agent_turns:
        calls = [c for c in calls if _mentions(c, agent_turns)] or calls
    if calls:
        messages = _chat(m, calls[0].request.messages or [])
    else:  # a human or imported judge: what it was shown
        messages = [m.ChatMessageUser(content=redact_text(f"[{t.speaker or t.role}, round {t.round}] {t.shown_text or ''}"))
                    for t in turns]
        messages.insert(0, m.ChatMessageSystem(content=_NO_CALL))
    raw = redact_text(str(d.raw or ""))
    messages.append(m.ChatMessageAssistant(content=raw or "(no text: the answer was read from probabilities)"))
    usage = {}
    for c in calls:
        p, k = int(c.prompt_tokens or 0), int(c.completion_tokens or 0)
        cell.usage[c.model][0] += p
        cell.usage[c.model][1] += k
        u = usage.setdefault(c.model, [0, 0])
        u[0] += p
        u[1] += k
    sid = str(d.job_key)
    if sid in cell.ids:  # one job judged in rooms of several agents
        sid = f"{sid}|{d.agent}"
    cell.ids.add(sid)
    question = q.question if q is not None else str(d.question_id)
    target = answers[ci - 1] if ci in (1, 2) and len(answers) >= ci else (q.correct if q is not None else "")
    meta = {k: getattr(d, k) for k in ("question_id", "agent", "protocol", "task", "assignment", "answer_order")}
    meta.update(answer=d.answer, correct_index=ci, probs=d.probs, run=str(store.dir))
    return ilog.EvalSample(
        id=sid, epoch=1, input=redact_text(question), target=redact_text(target), choices=answers or None,
        messages=messages, metadata=meta,
        output=m.ModelOutput.from_content(model=d.judge or "judge", content=raw),
        scores={"judge": scorer.Score(value=_value(d), answer=None if d.answer is None else str(d.answer),
                                      explanation=raw or None, metadata={"probs": d.probs})},
        model_usage={k: m.ModelUsage(input_tokens=p, output_tokens=c, total_tokens=p + c) for k, (p, c) in usage.items()})


def _eval_log(ilog, m, cell: _Cell, row: dict[str, Any], identity: RunIdentity, directory: str, created: str, version: str):
    metrics = {"accuracy": row.get("accuracy"), "ci_low": row.get("ci_low"), "ci_high": row.get("ci_high"),
               "n": row.get("n"), "n_invalid": row.get("n_invalid"),
               "accuracy_invalid_wrong": row.get("accuracy_invalid_wrong")}
    task = f"{cell.task}/{cell.protocol}"
    return ilog.EvalLog(
        status="success",
        eval=ilog.EvalSpec(
            created=created, task=task, task_id=hashlib.sha1(task.encode()).hexdigest()[:22],
            task_args={"protocol": cell.protocol, "task": cell.task}, model=cell.judge,
            dataset=ilog.EvalDataset(name=cell.task, samples=len(cell.samples),
                                     sample_ids=[s.id for s in cell.samples]),
            config=ilog.EvalConfig(),
            metadata={"run": str(directory), "kind": identity.kind or "run", "agent": identity.agent,
                      "deviations": list(identity.deviations or []), "oversight_bench": version,
                      "flagged": row.get("flagged") or []}),
        plan=ilog.EvalPlan(name="oversight-bench", steps=[ilog.EvalPlanStep(solver=cell.protocol)]),
        results=ilog.EvalResults(
            total_samples=len(cell.samples), completed_samples=len(cell.samples),
            scores=[ilog.EvalScore(name="judge", scorer="judge_decision",
                                   metrics={k: ilog.EvalMetric(name=k, value=v) for k, v in metrics.items()
                                            if v is not None})]),
        stats=ilog.EvalStats(started_at=created, completed_at=created,
                             model_usage={k: m.ModelUsage(input_tokens=p, output_tokens=c, total_tokens=p + c)
                                          for k, (p, c) in cell.usage.items()}),
        samples=cell.samples)
