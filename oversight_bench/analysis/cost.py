"""Cost accounting the paper left out (seed, Critical Assessment): model calls, tokens and seconds per
question per protocol, accuracy per 1k tokens, and a compute-matched QA baseline.

The compute-matched baseline gives the judge, answering without the article, as many samples as a
debate spent calls on the question and takes the majority vote. It needs the extra QA samples a run
stores as `extra.samples` on qa_without_article decisions; without them it is reported unavailable.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

import numpy as np

from oversight_bench.analysis.rows import CallRow, DecisionRow
from oversight_bench.analysis.stats import mean_ci
from oversight_bench.protocol import registered_protocols


def _qkey(c: CallRow) -> tuple:
    return (c.protocol, c.task, c.question_id)


def _same_model(model: str | None, spec: str | None) -> bool:
    """Call records name the model; decisions name the spec. Match loosely (spec contains name)."""
    if not model or not spec:
        return False
    return model == spec or str(model) in str(spec) or str(spec) in str(model)


def cost_table(decisions: list[DecisionRow], calls: list[CallRow]) -> dict[tuple, dict[str, Any]]:
    """Cost per (judge, agent, protocol, task): the agent's calls plus this judge's calls on the
    group's questions, divided by the number of questions."""
    by_q: dict[tuple, list] = defaultdict(list)
    for c in calls:
        by_q[_qkey(c)].append(c)
    groups: dict[tuple, set] = defaultdict(set)
    for d in decisions:
        if d.unjudged:
            continue
        groups[(d.judge, d.agent, d.protocol, d.task)].add(d.question_id)
    out = {}
    for (judge, agent, proto, task), qids in groups.items():
        n_calls = toks = ptoks = ctoks = 0
        secs = 0.0
        for q in qids:
            qcalls = by_q.get((proto, task, q), [])
            judge_models = {c.model for c in qcalls if c.role == "judge"}
            for c in qcalls:
                if c.role == "judge" and len(judge_models) > 1 and not _same_model(c.model, judge):
                    continue  # a re-judged store: count only this judge's calls
                n_calls += 1
                ptoks += c.usage.prompt_tokens
                ctoks += c.usage.completion_tokens
                secs += c.usage.latency_s
        toks = ptoks + ctoks
        nq = len(qids)
        out[(judge, agent, proto, task)] = {
            "n_questions": nq, "calls": n_calls, "tokens": toks,
            "calls_per_question": n_calls / nq if nq and n_calls else None,
            "prompt_tokens_per_question": ptoks / nq if nq and n_calls else None,
            "completion_tokens_per_question": ctoks / nq if nq and n_calls else None,
            "tokens_per_question": toks / nq if nq and n_calls else None,
            "seconds_per_question": secs / nq if nq and n_calls else None,
        }
    return out


def _sample_correct(sample: Any, correct_index: int) -> float | None:
    """A stored QA sample is a displayed answer (1/2), a dict with `answer`, or a raw string."""
    if isinstance(sample, dict):
        sample = sample.get("answer", sample.get("raw"))
    if isinstance(sample, str):
        m = re.search(r"Answer:\s*([12])", sample)
        sample = int(m.group(1)) if m else (int(sample.strip()) if sample.strip() in ("1", "2") else None)
    if sample not in (1, 2):
        return None
    return 1.0 if int(sample) == int(correct_index) else 0.0


def compute_matched(decisions: list[DecisionRow], calls_per_question: float | None, judge: str, task: str) -> dict[str, Any]:
    """Majority vote of the judge's QA-without-article samples, k = the debate's calls per job
    (one answer order), compared replicate for replicate with the debate."""
    if not calls_per_question:
        return {"available": False, "reason": "no call records for the debate"}
    k = max(1, int(round(calls_per_question)))
    per_q: dict[str, list[float]] = defaultdict(list)
    any_samples = False
    k_used = []
    closed_book = {n for n, p in registered_protocols().items() if p.baseline and not p.needs_article}
    for d in decisions:
        if d.protocol not in closed_book or d.judge != judge or d.task != task:
            continue
        samples = d.extra.samples or d.samples
        if not samples:
            continue
        any_samples = True
        votes = [v for v in (_sample_correct(s, d.correct_index) for s in samples[:k]) if v is not None]
        if not votes:
            continue
        k_used.append(len(votes))
        c = Counter(votes)
        per_q[d.question_id].append(1.0 if c[1.0] > c[0.0] else (0.5 if c[1.0] == c[0.0] else 0.0))
    if not any_samples:
        return {"available": False, "k": k, "reason": "no extra QA samples stored (extra.samples on qa_without_article)"}
    m, lo, hi = mean_ci(float(np.mean(v)) for v in per_q.values())
    return {"available": True, "k": k, "k_used_mean": float(np.mean(k_used)) if k_used else None,
            "n": len(per_q), "accuracy": m, "ci_low": lo, "ci_high": hi}
