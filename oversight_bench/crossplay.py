"""The cross-play plan behind Elo (paper §4.3, Appendix E): which debates to run.

The paper samples 512 cross-play pairings, each dataset contributing an equal number, and judges
one-round simultaneous debates. Here every game is a distinct (question, pair of debaters) draw:
each task gets `games_per_task` games; a task's questions are used as evenly as its pool allows
(all different when the pool is big enough) and never twice for the same pair; pairs get equal
shares, each debater of a pair defends the correct answer in turn, and the displayed answer order
is random. Replaying a few questions across every pair (what this replaced) makes games share
questions and the bootstrap too confident.

Self-play games (debater X on both sides) are added so that Figure 4's accuracy axis, "judge
accuracy when X argues both sides", is measured directly. Every debater plays the same self-play
(question, answer order) set, so accuracy differences between debaters are not question
differences. Self-play games are not Elo games: `analysis.elo` leaves them out of the fit.

Pure: the same pools, debaters, pairings and seed give the same plan.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from oversight_bench.errors import BenchError
from oversight_bench.questions import ORDERS, Question

PAIRINGS = 512


@dataclass(frozen=True)
class PlannedGame:
    """One debate to run: `debaters` defend displayed answers 1 and 2 of `question` in `answer_order`."""

    question: Question
    debaters: tuple[str, str]
    answer_order: str

    @property
    def selfplay(self) -> bool:
        return self.debaters[0] == self.debaters[1]

    @property
    def pair(self) -> tuple[str, str]:
        return tuple(sorted(self.debaters))  # type: ignore[return-value]

    @property
    def correct_debater(self) -> str:
        return self.debaters[0 if self.answer_order == "correct_first" else 1]


def games_per_task(pairings: int, n_tasks: int) -> int:
    """Cross-play games per task: equal for every task, so the plan holds `pairings` rounded up to a
    multiple of the number of tasks (e.g. 513 for 512 over 9 tasks). Also how many questions to load."""
    return math.ceil(pairings / n_tasks)


def selfplay_per_task(pairings: int, n_tasks: int, n_debaters: int) -> int:
    """Default self-play questions per task (each played by every debater): as many self-play games
    in all as cross-play games, split evenly over debaters and tasks."""
    return max(1, math.ceil(pairings / (n_tasks * n_debaters)))


def _rng(seed: int, *parts: str) -> np.random.Generator:
    h = hashlib.sha256("|".join(map(str, (seed, "crossplay", *parts))).encode()).digest()
    return np.random.default_rng(int.from_bytes(h[:8], "big"))


def plan_games(pools: Mapping[str, Sequence[Question]], debaters: Sequence[str], pairings: int = PAIRINGS,
               seed: int = 0, *, selfplay: int | None = None) -> list[PlannedGame]:
    """Cross-play games (each task contributing `games_per_task(pairings, len(pools))`) followed, per
    task, by self-play games (`selfplay` questions per task, each played by every debater; default
    `selfplay_per_task`, capped at the pool size). Raises BenchError when a task's pool cannot give
    its share of distinct (question, pair) games."""
    names = sorted(set(debaters))
    if len(names) < 2:
        raise BenchError(f"cross-play needs at least two different debaters, got {', '.join(names) or 'none'}")
    if pairings < 1:
        raise BenchError(f"cross-play pairings must be at least 1, got {pairings}")
    if not pools:
        raise BenchError("cross-play needs at least one task")
    if selfplay is not None and selfplay < 0:
        raise BenchError(f"self-play games per task must be 0 or more, got {selfplay}")
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    n = games_per_task(pairings, len(pools))
    plan: list[PlannedGame] = []
    for task, questions in pools.items():
        pool = list({q.id: q for q in questions}.values())  # a repeated id is the same question
        if len(pool) * len(pairs) < n:
            raise BenchError(f"task {task} has {len(pool)} question(s): at most {len(pool) * len(pairs)} distinct "
                             f"(question, pair) games for {len(pairs)} pair(s), but its share of {pairings} pairings is {n}; "
                             "use fewer pairings or tasks with more questions")
        rng = _rng(seed, task)
        plan += _crossplay(pool, pairs, n, rng)
        want = selfplay if selfplay is not None else min(len(pool), selfplay_per_task(pairings, len(pools), len(names)))
        if want > len(pool):
            raise BenchError(f"task {task} has {len(pool)} question(s), fewer than the {want} self-play questions asked for")
        plan += _selfplay(pool, names, want, rng)
    return plan


def _crossplay(pool: list[Question], pairs: list[tuple[str, str]], n: int, rng: np.random.Generator) -> list[PlannedGame]:
    # questions: successive shuffles of the pool, so each is used floor or ceil(n / len(pool)) times
    order: list[int] = []
    while len(order) < n:
        order += rng.permutation(len(pool)).tolist()
    counts = np.zeros(len(pairs), dtype=int)
    used: dict[int, set[int]] = {}
    correct_side = rng.integers(0, 2, len(pairs))  # which member of each pair defends the correct answer next
    games = []
    for qi in order[:n]:
        # the least-used pair this question has not met yet (random among ties): equal pair shares,
        # distinct (question, pair) units; a question repeats at most ceil(n / len(pool)) <= len(pairs) times
        taken = used.setdefault(qi, set())
        tie = rng.random(len(pairs))
        k = min((k for k in range(len(pairs)) if k not in taken), key=lambda k: (counts[k], tie[k]))
        taken.add(k)
        counts[k] += 1
        right, wrong = pairs[k] if correct_side[k] == 0 else pairs[k][::-1]
        correct_side[k] ^= 1
        answer_order = ORDERS[int(rng.integers(0, 2))]
        games.append(PlannedGame(pool[qi], (right, wrong) if answer_order == "correct_first" else (wrong, right), answer_order))
    return games


def _selfplay(pool: list[Question], names: list[str], want: int, rng: np.random.Generator) -> list[PlannedGame]:
    picks = rng.permutation(len(pool))[:want]
    first = int(rng.integers(0, 2))  # answer orders alternate, so each debater gets a balanced set
    return [PlannedGame(pool[qi], (d, d), ORDERS[(first + i) % 2]) for i, qi in enumerate(picks) for d in names]
