"""Judge accuracy with the paper's confidence intervals, paired permutation tests, calibration.

Appendix D of the paper: replicates of one question (both answer orders, both consultancy
assignments) are correlated, so they are averaged first; the per-question means are then treated
as IID and a normal approximation gives the 95% interval. Protocols are compared with a paired
permutation test on the questions both were run on (scipy, `permutation_type='samples'`, 10,000
resamples).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any, Iterable

import numpy as np
from scipy import stats as sps

from oversight_bench.analysis.rows import DecisionRow

Z95 = float(sps.norm.ppf(0.975))
N_RESAMPLES = 10_000


def per_question(decisions: Iterable[DecisionRow], value: str = "correct") -> dict[tuple[str, str], float]:
    """Mean of `value` over each question's valid replicates, keyed by (task, question_id).

    Invalid answers (value None) are excluded; a question with no valid replicate is dropped.
    """
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for d in decisions:
        v = getattr(d, value)
        if v is None:
            continue
        acc[(d.task, d.question_id)].append(float(v))
    return {k: float(np.mean(v)) for k, v in acc.items()}


def mean_ci(values: Iterable[float], z: float = Z95) -> tuple[float | None, float | None, float | None]:
    """Mean and normal-approximation interval of IID values, clipped to [0, 1]; None where undefined."""
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return None, None, None
    m = float(x.mean())
    if x.size < 2:
        return m, None, None
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return m, max(0.0, m - half), min(1.0, m + half)


def normal_ci(values: Iterable[float], z: float = Z95) -> tuple[float | None, float | None, float | None]:
    """Mean and normal-approximation interval of IID values on any scale (not clipped: the mean answer
    position lies in 1..2); None where undefined. Python's exact `statistics.stdev`, as `report`'s
    position rows always computed it, so stored reports read the same to the last digit."""
    x = [float(v) for v in values]
    if not x:
        return None, None, None
    m = float(sum(x) / len(x))
    if len(x) < 2:
        return m, None, None
    half = z * statistics.stdev(x) / math.sqrt(len(x))
    return m, m - half, m + half


def percentile_ci(samples: Iterable[float], level: float = 95.0) -> tuple[float | None, float | None]:
    """The central `level`% percentile interval of bootstrap samples (numpy's linear
    interpolation), (None, None) without samples: the one place a bootstrap becomes an interval."""
    x = np.asarray(list(samples), dtype=float)
    if x.size == 0:
        return None, None
    tail = (100.0 - level) / 2
    return float(np.percentile(x, tail)), float(np.percentile(x, 100.0 - tail))


def accuracy(decisions: list[DecisionRow]) -> dict[str, Any]:
    """n (questions with a valid answer), accuracy and its 95% CI, and the invalid rate over records."""
    decisions = [d for d in decisions if not d.unjudged]
    pq = per_question(decisions)
    m, lo, hi = mean_ci(pq.values())
    n_rec = len(decisions)
    invalid = sum(1 for d in decisions if d.answer is None)
    return {
        "n": len(pq),
        "n_records": n_rec,
        "accuracy": m,
        "ci_low": lo,
        "ci_high": hi,
        "n_invalid": invalid,
        "invalid_rate": (invalid / n_rec) if n_rec else None,
    }


def _mean_diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def paired_permutation_test(a: dict, b: dict, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """Two-sided paired permutation test of mean per-question accuracy, on the questions both have.

    `a` and `b` map question keys to per-question accuracy (see `per_question`). Pairing matters:
    the same question is much more alike across protocols than two different questions are.
    """
    keys = sorted(set(a) & set(b), key=str)
    out: dict[str, Any] = {"n": len(keys), "diff": None, "p_value": None}
    if len(keys) < 2:
        return out
    x = np.array([a[k] for k in keys])
    y = np.array([b[k] for k in keys])
    out["diff"] = float(x.mean() - y.mean())
    if np.allclose(x, y):
        out["p_value"] = 1.0
        return out
    res = sps.permutation_test((x, y), _mean_diff, permutation_type="samples", n_resamples=n_resamples,
                               vectorized=True, alternative="two-sided", random_state=seed)
    out["p_value"] = float(res.pvalue)
    return out


def protocol_pvalues(decisions: list[DecisionRow], group_by=("judge", "agent", "task"), *, n_resamples: int = N_RESAMPLES) -> list[dict[str, Any]]:
    """Every pair of protocols within each group (default judge × agent × task), as table rows."""
    groups: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for d in decisions:
        if d.unjudged:
            continue
        groups[tuple(getattr(d, g) for g in group_by)][d.protocol].append(d)
    rows = []
    for gkey, by_proto in sorted(groups.items(), key=lambda kv: str(kv[0])):
        protos = sorted(by_proto)
        pq = {p: per_question(by_proto[p]) for p in protos}
        for i, p in enumerate(protos):
            for q in protos[i + 1:]:
                r = paired_permutation_test(pq[p], pq[q], n_resamples=n_resamples)
                if r["n"] < 2:
                    continue
                rows.append({**dict(zip(group_by, gkey)), "protocol_a": p, "protocol_b": q, **r})
    return rows


def calibration(decisions: list[DecisionRow], n_bins: int = 10) -> dict[str, Any] | None:
    """Brier score of P(correct answer), expected calibration error and reliability bins.

    Reliability uses the judge's top-choice confidence (max of the two probabilities, in [0.5, 1])
    against whether that top choice was correct, binned equally over [0.5, 1].
    """
    p_correct, conf, hit = [], [], []
    for d in decisions:
        probs = d.probs
        ci = d.correct_index
        if not probs or ci is None or len(probs) != 2:
            continue
        p = np.asarray(probs, dtype=float)
        if not np.all(np.isfinite(p)) or p.sum() <= 0:
            continue
        p = p / p.sum()
        pc = float(p[int(ci) - 1])
        p_correct.append(pc)
        conf.append(max(pc, 1 - pc))
        hit.append(1.0 if pc > 0.5 else (0.5 if pc == 0.5 else 0.0))
    if not p_correct:
        return None
    pc = np.array(p_correct)
    conf_a, hit_a = np.array(conf), np.array(hit)
    edges = np.linspace(0.5, 1.0, n_bins + 1)
    idx = np.clip(np.digitize(conf_a, edges[1:-1]), 0, n_bins - 1)
    bins, ece = [], 0.0
    for b in range(n_bins):
        m = idx == b
        if not m.any():
            continue
        c, a = float(conf_a[m].mean()), float(hit_a[m].mean())
        ece += m.sum() / len(conf_a) * abs(a - c)
        bins.append({"low": float(edges[b]), "high": float(edges[b + 1]), "n": int(m.sum()), "confidence": c, "accuracy": a})
    return {"n": len(pc), "brier": float(np.mean((1 - pc) ** 2)), "ece": float(ece), "bins": bins}
