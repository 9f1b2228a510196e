"""`oversight-bench export --preferences`: a run's preference pairs as JSONL in the form preference
trainers read (TRL's DPOTrainer/RewardTrainer "conversational preference" rows: `prompt` a list of
{role, content} messages, `chosen` and `rejected` one assistant message each), read-only.

Two kinds of pair (`pair`):

* `best_of_n`: a debater turn played best-of-N (`extra.best_of_n` of the turn: the N raw samples
  and the one the debater model picked with the H.7 prompt). `prompt` is the exact request the
  samples answered (the stored call whose replies begin each sample); `chosen` the picked sample,
  `rejected` one other sample: one row per sample not picked (the pick ranks the picked one above
  each of the others and says nothing among them). A pick that did not parse (`pick_fallback`)
  makes no rows.
* `room`: a judged debate room (a protocol with debaters, `has_debaters`, so not a debate judged
  another way), whose judge's verdict favoured one side: `chosen` that side's
  arguments (as the judge read them, one "<speaker> (round r):" block per round), `rejected` the
  other side's, `prompt` the question and the two answers as displayed (no article: join on `task`
  and `question_id`). With `--pairs auto` (the default) only rooms without best-of-N turns give one.

Every row also carries the room's verdict (`judge`, `judge_answer`, `judge_probs`), the correct
side (`correct_side`), and what the pair is (see `FIELDS`); the key set is the same for both kinds
(None where a field does not apply), so `datasets.load_dataset("json")` reads one schema.

Nothing is written into the run (`RunReader`); identical pairs (an open debate repeats its
debate's turns) are written once, under the assigned-role debate's room (read first).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from oversight_bench.errors import BenchError
from oversight_bench.model_text import is_argument
from oversight_bench.protocol import protocols_where, registered_protocols
from oversight_bench.redact import redact_text
from oversight_bench.rundir.reader import RunReader
from oversight_bench.rundir.records import Decision, SampledReplies, Turn

PAIRS = ("auto", "best-of-n", "rooms", "all")

#: every row's fields besides prompt/chosen/rejected, in order, with what they mean (the README's table)
FIELDS = {
    "pair": "best_of_n or room",
    "run": "the run directory as given",
    "job_key": "the room (protocol|task|question|assignment|order[|variant])",
    "protocol": "the room's protocol", "task": "its task", "question_id": "its question",
    "answer_order": "correct_first or correct_second (answer numbers below are as displayed)",
    "judge": "the judge whose verdict the row carries", "agent": "the run's agent",
    "judge_answer": "the judge's answer, 1 or 2",
    "judge_probs": "[P(answer 1), P(answer 2)] of the judge, or null where the backend gives none",
    "correct_side": "the number of the correct answer",
    "round": "best_of_n: the turn's round", "speaker": "best_of_n: the debater",
    "side": "best_of_n: the answer the debater defends",
    "side_correct": "best_of_n: whether it defends the correct answer",
    "judge_favoured_side": "best_of_n: whether the room's verdict went to this debater's side",
    "n_candidates": "best_of_n: N", "chosen_index": "best_of_n: the picked sample (0-based)",
    "rejected_index": "best_of_n: the other sample (0-based)",
    "chosen_side": "room: the side the verdict favoured (= judge_answer)", "rejected_side": "room: the other side",
    "chosen_correct": "room: whether the favoured side is the correct one; best_of_n: null",
}


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _assistant(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


def _side_text(turns: list[Turn], side: int) -> str:
    return "\n\n".join(f"{t.speaker} (round {t.round}):\n{t.shown or ''}" for t in turns if t.defends == side)


def _room_prompt(question: str, decision: Decision) -> list[dict[str, str]]:
    answers = decision.answers or []
    text = f"Question: {question}"
    if len(answers) == 2:
        text += f"\n\nAnswer 1: {answers[0]}\nAnswer 2: {answers[1]}"
    return [{"role": "user", "content": text}]


def _request_for(calls: "_Calls", d: Decision, samples: list[str], turn: Turn) -> tuple[list | None, str | None]:
    """The messages of the agent call whose n replies begin the n samples (the thinking call: each
    sample is its reply, then the argument): the job's own calls first, then any of its question's;
    (messages, None) or (None, why not)."""
    n = len(samples)
    for wide in (False, True):
        found = [c for c in calls.of(d, wide) if len(c.texts) >= n
                 and all(isinstance(t, str) and s.startswith(t.rstrip()) for s, t in zip(samples, c.texts))]
        if found:
            break
    else:
        return None, "no stored request"
    if len(found) > 1:  # replies that begin several calls' samples (empty thinking): the turn's tag decides
        tag = f"round{turn.round}/{turn.speaker}"  # as debate.py tags a debater's turn
        found = [c for c in found if c.tag == tag or c.tag.endswith("/" + tag)] or found
    prompts = {json.dumps(m, sort_keys=True): m for m in (calls.messages(c.key) for c in found)}
    if len(prompts) != 1:
        return None, "ambiguous request"
    return next(iter(prompts.values())), None


class _Calls:
    """The run's agent sampling calls (no continuation), read in one pass on first use and kept by
    question without their prompts (a prompt is read by its key when a row needs it): the calls
    table has no index by question, so one scan beats one per room."""

    def __init__(self, ro: RunReader):
        self.ro = ro
        self._by_question: dict[tuple[str | None, str | None], list[SampledReplies]] | None = None

    def of(self, d: Decision, wide: bool) -> list[SampledReplies]:
        """The calls of the job's own fields; `wide`: of its question, whichever job made them (an open
        debate's turns were sampled by its debate sub-job, whose calls carry that job's fields)."""
        if self._by_question is None:
            self._by_question = {}
            for c in self.ro.sampling_calls("agent"):
                self._by_question.setdefault((c.task, c.question_id), []).append(c)
        calls = self._by_question.get((d.task, d.question_id), [])
        if wide:
            return calls
        return [c for c in calls if (c.protocol, c.assignment, c.answer_order) == (d.protocol, d.assignment, d.answer_order)]

    def messages(self, key: str) -> list[dict[str, Any]]:
        """A call's messages, each with role and content first (the store keeps its keys sorted)."""
        request = self.ro.request(key)
        return [{"role": m.get("role"), "content": m.get("content"), **{k: v for k, v in m.items() if k not in ("role", "content")}}
                for m in (request.messages if request is not None else None) or []]


def _base(run: str, d: Decision, pair: str) -> dict[str, Any]:
    """A row with every field (null until set): prompt, chosen, rejected, then `FIELDS` in order."""
    row: dict[str, Any] = dict.fromkeys(("prompt", "chosen", "rejected", *FIELDS))
    row.update(pair=pair, run=run, job_key=d.job_key, protocol=d.protocol, task=d.task, question_id=d.question_id,
               answer_order=d.answer_order, judge=d.judge, agent=d.agent)
    row.update(judge_answer=d.answer, judge_probs=list(d.probs) if d.probs else None, correct_side=d.correct_index)
    return row


class _Facts:
    """The installed protocols' facts the export reads: which rooms are debates whose verdict ranks the
    two sides (`has_debaters`), and which are played first (assigned-role debates: not open roles)."""

    def __init__(self):
        self.known = set(registered_protocols())
        self.debates = protocols_where("has_debaters")
        self.first = self.debates - protocols_where("open_role")


class _Job:
    """One room's records (`RunReader.job_records`: every judge's turns and decision, typed by
    `rundir.records`), its turns by judge."""

    def __init__(self, ro: RunReader, calls: _Calls, records: list[Turn | Decision], facts: "_Facts"):
        self.ro, self.calls = ro, calls
        self.decisions = [r for r in records if isinstance(r, Decision)]
        self.turns: dict[str, list[Turn]] = {}
        for r in records:
            if isinstance(r, Turn):
                self.turns.setdefault(r.judge, []).append(r)
        protocol = next((r.protocol for r in records), None)
        #: a room that may repeat a debate's transcript (an open role's, or one judged another way): read
        #: later (a room with no arguing turn, QA, gives nothing and is read once)
        argues = any(is_argument(t) for ts in self.turns.values() for t in ts)
        self.later = argues and protocol not in facts.first
        #: whether its verdict ranks two debaters' sides (the protocol's `has_debaters`; an
        #: uninstalled protocol's room is read from its turns)
        self.debate = protocol in facts.debates or protocol not in facts.known


def preference_rows(directory: str | Path, *, pairs: str = "auto", counts: Counter | None = None) -> Iterator[dict[str, Any]]:
    """The run's preference rows (see the module doc); `counts` gets rows by kind and what was left out, by reason."""
    if pairs not in PAIRS:
        raise BenchError(f"--pairs {pairs}: expected one of {', '.join(PAIRS)}")
    counts = counts if counts is not None else Counter()
    ro = RunReader(directory)
    seen: set[str] = set()
    run = str(directory)
    try:
        calls, facts = _Calls(ro), _Facts()
        later = []  # rooms that repeat a debate's transcript go second, so a pair is written under the
        for key in dict.fromkeys(s[0] for s in ro.summaries()):  # room that played it
            job = _Job(ro, calls, ro.job_records(key), facts)
            if job.later:
                later.append(key)
                continue
            for d in job.decisions:
                yield from _rows_of(job, d, run, pairs, counts, seen)
        for key in later:
            job = _Job(ro, calls, ro.job_records(key), facts)
            for d in job.decisions:
                yield from _rows_of(job, d, run, pairs, counts, seen)
    finally:
        ro.close()


def _rows_of(job: _Job, d: Decision, run: str, pairs: str, counts: Counter, seen: set[str]) -> Iterator[dict[str, Any]]:
    turns = sorted(job.turns.get(d.judge, []), key=lambda t: t.seq)
    arguing = [t for t in turns if is_argument(t)]
    bon = [t for t in arguing if t.extra is not None and isinstance(t.extra.best_of_n, dict)]
    verdict = d.answer if d.answer in (1, 2) else None
    if pairs in ("auto", "best-of-n", "all"):
        for t in bon:
            yield from _best_of_n_rows(job, d, t, run, verdict, counts, seen)
    wants_room = pairs in ("rooms", "all") or (pairs == "auto" and not bon)
    if not wants_room or not job.debate or not {1, 2} <= {t.defends for t in arguing}:
        return  # not a debate whose verdict ranks the two sides (QA, consultancy, a debate judged another way)
    if (d.extra is not None and d.extra.unjudged) or d.judge == "unjudged":
        counts["room left out: nobody judged it (an import)"] += 1
        return
    if verdict is None:
        counts["room left out: no valid verdict"] += 1
        return
    question = job.ro.question_briefs([(d.task, d.question_id)]).get((d.task, d.question_id), ("", ""))[0]
    row = _base(run, d, "room")
    row.update(prompt=_room_prompt(question, d), chosen=_assistant(_side_text(arguing, verdict)),
               rejected=_assistant(_side_text(arguing, 3 - verdict)), chosen_side=verdict, rejected_side=3 - verdict,
               chosen_correct=None if d.correct_index is None else verdict == d.correct_index)
    mark = _digest([row["judge"], row["prompt"], row["chosen"], row["rejected"]])
    if mark in seen:
        counts["room left out: the same pair already written (a room repeating a debate)"] += 1
        return
    seen.add(mark)
    counts["room"] += 1
    yield row


def _best_of_n_rows(job: _Job, d: Decision, t: Turn, run: str, verdict: int | None,
                    counts: Counter, seen: set[str]) -> Iterator[dict[str, Any]]:
    info = t.extra.best_of_n
    samples = [s for s in info.get("samples") or [] if isinstance(s, str)]
    picked = info.get("picked")
    if info.get("pick_fallback"):
        counts["best-of-N turn left out: the pick did not parse"] += 1
        return
    if len(samples) < 2 or not isinstance(picked, int) or not 1 <= picked <= len(samples):
        counts["best-of-N turn left out: fewer than two samples or no pick"] += 1
        return
    messages, why = _request_for(job.calls, d, samples, t)
    if messages is None:
        counts[f"best-of-N turn left out: {why}"] += 1
        return
    chosen = picked - 1
    side = t.defends
    for i, text in enumerate(samples):
        if i == chosen:
            continue
        if text == samples[chosen]:
            counts["best-of-N pair left out: the two samples are the same text"] += 1
            continue
        row = _base(run, d, "best_of_n")
        row.update(prompt=messages, chosen=_assistant(samples[chosen]), rejected=_assistant(text), round=t.round,
                   speaker=t.speaker, side=side, n_candidates=len(samples), chosen_index=chosen, rejected_index=i,
                   side_correct=None if side is None or d.correct_index is None else side == d.correct_index,
                   judge_favoured_side=None if verdict is None or side is None else verdict == side)
        mark = _digest([row["judge"], row["prompt"], row["chosen"], row["rejected"]])
        if mark in seen:
            counts["best-of-N pair left out: the same pair already written (a room repeating a debate)"] += 1
            continue
        seen.add(mark)
        counts["best_of_n"] += 1
        yield row


def export_preferences(directory: str | Path, write: Callable[[str], None], *, pairs: str = "auto") -> Counter:
    """Write the run's preference rows as JSONL through `write` (secrets redacted); return the counts."""
    counts: Counter = Counter()
    for row in preference_rows(directory, pairs=pairs, counts=counts):
        write(redact_text(json.dumps(row, ensure_ascii=False)))
    return counts
