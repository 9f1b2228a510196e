"""Elo ratings of debaters from cross-play debates (paper §4.3, Appendix E).

Expected win rate of i over j: 1 / (1 + 10^((E_j - E_i)/scale)), scale 500 as the paper states
(following Khan et al. 2024). Ratings minimise the negative log-likelihood of the observed win-rate
matrix with BFGS (the paper found NLL handled few games better than squared error). Correct-Elo and
incorrect-Elo treat each debater's two sides as separate players. Ratings are identified only up to
a constant, so they are centred on `anchor` (mean rating).

Prior: each pair of players that met gets `prior_games` virtual games, half won by each (virtual
draws, as in Coulom's BayesElo), before the fit; default 1, so n games' win rate w/n becomes
(w + 0.5)/(n + 1). Without it a perfect record has no finite maximum (BFGS stops thousands of points
apart, wherever its tolerance lets it); with it 10 wins out of 10 give a gap of
500*log10(10.5/0.5) = 661 points, and at tens of games per pair ratings move by a few points.
`prior_games=0` is the paper's bare fit.

95% intervals: percentile bootstrap over 500 seeds that resamples questions (all games on a drawn
question together), within each task, so games sharing a question are not counted as independent
evidence; games that name no question are resampled one by one. Self-play games (a player against
itself) carry no information on ratings and are left out of the fit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from oversight_bench.analysis.rows import DecisionRow
from oversight_bench.analysis.stats import percentile_ci
from oversight_bench.deviations import ELO_BOOTSTRAP, ELO_PRIOR_GAMES, ELO_SCALE, elo_prior_text
from oversight_bench.errors import BenchError
from oversight_bench.protocol import protocols_where
from oversight_bench.rundir.records import Turn

#: a game: player_1, player_2, winner (1 or 2); optional side_1/side_2 ('correct'/'incorrect'),
#: question (the bootstrap unit) and task (the bootstrap stratum)
Game = dict[str, Any]


def expected_win(ei: float, ej: float, scale: float = ELO_SCALE) -> float:
    return 1.0 / (1.0 + 10.0 ** ((ej - ei) / scale))


def prior_text(prior_games: float) -> str:
    """The prior in words, with the paper's (none) beside it: every Elo table shows this."""
    return elo_prior_text(prior_games)


def win_matrix(games: Iterable[Game], players: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(wins[i, j] = games i won against j, played[i, j] = games between i and j)."""
    ix = {p: k for k, p in enumerate(players)}
    w = np.zeros((len(players), len(players)))
    for g in games:
        a, b = ix[g["player_1"]], ix[g["player_2"]]
        if g["winner"] == 1:
            w[a, b] += 1
        else:
            w[b, a] += 1
    return w, w + w.T


def _fit_matrix(wins: np.ndarray, played: np.ndarray, scale: float, weighting: str, prior_games: float,
                x0: np.ndarray | None = None) -> np.ndarray:
    """BFGS on the NLL; `weighting='rates'` uses win rates (the paper's objective), 'counts' uses games."""
    met = played > 0
    wins = wins + np.where(met, prior_games / 2.0, 0.0)
    played = played + np.where(met, prior_games, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        target = np.where(met, wins / np.where(met, played, 1), 0.0) if weighting == "rates" else wins
    k = np.log(10.0) / scale
    n = wins.shape[0]

    def f(x):  # x: ratings in natural log-odds units (e * k), which keeps BFGS well scaled
        diff = x[:, None] - x[None, :]  # log-odds that i beats j
        # -log sigmoid(diff) computed stably
        nll = np.sum(target * np.logaddexp(0.0, -diff))
        # pin the free constant: ratings are only defined up to a shift
        nll += 1e-6 * np.sum(x) ** 2
        g_ij = -target * expit(-diff)  # expit(-diff) = 1 - sigmoid(diff), without overflow
        grad = g_ij.sum(axis=1) - g_ij.sum(axis=0) + 2e-6 * np.sum(x)
        return nll, grad

    res = minimize(f, np.zeros(n) if x0 is None else x0 * k, jac=True, method="BFGS", options={"gtol": 1e-7, "maxiter": 2000})
    e = res.x / k
    return e - e.mean()


def _canonical(g: Game) -> Game:
    """The same game with its players in name order, so listing order cannot change a bootstrap."""
    if g["player_1"] <= g["player_2"]:
        return g
    return {**g, "player_1": g["player_2"], "player_2": g["player_1"], "winner": 3 - int(g["winner"]),
            "side_1": g.get("side_2"), "side_2": g.get("side_1")}


def _clusters(canon: list[Game]) -> tuple[np.ndarray, list[np.ndarray], str]:
    """Each game's bootstrap unit (its question, or itself when no game names one) and the units of
    each stratum (task), both in a canonical order."""
    by_q = all(g.get("question") is not None for g in canon)
    keys = [(str(g.get("task") or ""), str(g["question"]) if by_q else f"game {i}") for i, g in enumerate(canon)]
    units = sorted(set(keys))
    ix = {u: i for i, u in enumerate(units)}
    strata: dict[str, list[int]] = defaultdict(list)
    for i, (task, _) in enumerate(units):
        strata[task].append(i)
    return np.array([ix[k] for k in keys], dtype=int), [np.array(v) for _, v in sorted(strata.items())], \
        ("question" if by_q else "game")


def fit_elo(games: list[Game], *, scale: float = ELO_SCALE, n_bootstrap: int = ELO_BOOTSTRAP, anchor: float = 0.0,
            weighting: str = "rates", prior_games: float = ELO_PRIOR_GAMES, seed: int = 0,
            players: Sequence[str] | None = None) -> dict[str, Any]:
    """Ratings with 95% bootstrap intervals, plus the win-rate matrix.

    Players are sorted by name and games put in a canonical order before resampling, so the result
    does not depend on the order players or games are given in.
    """
    if weighting not in ("rates", "counts"):
        raise BenchError(f"Elo weighting {weighting!r} is unknown; expected 'rates' or 'counts'")
    if prior_games < 0:
        raise BenchError(f"Elo prior_games must be 0 or more, got {prior_games}")
    games = [g for g in games if g["player_1"] != g["player_2"]]  # self-play: no information on ratings
    if not games:
        raise BenchError("no cross-play games to fit Elo on; expected debate records with two different named debaters")
    players = sorted(set(players or []) | {g["player_1"] for g in games} | {g["player_2"] for g in games})
    canon = sorted((_canonical(g) for g in games),
                   key=lambda g: (g["player_1"], g["player_2"], g["winner"], str(g.get("question", "")), str(g.get("id", ""))))
    wins, played = win_matrix(canon, players)
    point = _fit_matrix(wins, played, scale, weighting, prior_games)
    ix = {p: k for k, p in enumerate(players)}
    win_i = np.array([ix[g["player_1"]] if g["winner"] == 1 else ix[g["player_2"]] for g in canon])
    lose_i = np.array([ix[g["player_2"]] if g["winner"] == 1 else ix[g["player_1"]] for g in canon])
    unit_of, strata, unit = _clusters(canon)
    boots = []
    rng = np.random.default_rng(seed)
    for _ in range(n_bootstrap):
        mult = np.zeros(unit_of.max() + 1)
        for members in strata:  # each task keeps its number of questions: equal contributions stay equal
            np.add.at(mult, members[rng.integers(0, len(members), len(members))], 1.0)
        w = np.zeros_like(wins)
        np.add.at(w, (win_i, lose_i), mult[unit_of])
        boots.append(_fit_matrix(w, w + w.T, scale, weighting, prior_games, x0=point))
    boots = np.array(boots) + anchor if boots else np.empty((0, len(players)))
    point = point + anchor
    ci = [percentile_ci(boots[:, i]) for i in range(len(players))]
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(played > 0, wins / np.where(played > 0, played, 1), np.nan)
    return {
        "scale": scale, "weighting": weighting, "n_games": len(games), "n_bootstrap": n_bootstrap,
        "bootstrap_unit": unit, "n_units": int(unit_of.max() + 1),
        "prior_games": prior_games, "prior": prior_text(prior_games),
        "players": players,
        "ratings": {p: float(point[i]) for i, p in enumerate(players)},
        "ci_low": {p: ci[i][0] for i, p in enumerate(players)},
        "ci_high": {p: ci[i][1] for i, p in enumerate(players)},
        "games_by_player": {p: int(played[i].sum()) for i, p in enumerate(players)},
        "win_rate": [[None if np.isnan(v) else float(v) for v in row] for row in rate],
        "games_played": played.astype(int).tolist(),
    }


def split_by_side(games: list[Game]) -> list[Game]:
    """Games with each debater split into '<name>@correct' and '<name>@incorrect' players."""
    out = []
    for g in games:
        if not g.get("side_1") or not g.get("side_2"):
            raise BenchError("correct/incorrect Elo needs each game's sides (side_1, side_2 = 'correct'/'incorrect')")
        out.append({**g, "player_1": f"{g['player_1']}@{g['side_1']}", "player_2": f"{g['player_2']}@{g['side_2']}"})
    return out


def elo_analysis(games: list[Game], **kw) -> dict[str, Any]:
    """Aggregate Elo, plus correct/incorrect Elo when sides are known (self-play games left out of both)."""
    games = [g for g in games if g["player_1"] != g["player_2"]]
    out = {"aggregate": fit_elo(games, **kw)}
    if all(g.get("side_1") and g.get("side_2") for g in games):
        out["by_side"] = fit_elo(split_by_side(games), **kw)
        out["truth_advantage"] = {
            p: out["by_side"]["ratings"].get(f"{p}@correct", np.nan) - out["by_side"]["ratings"].get(f"{p}@incorrect", np.nan)
            for p in out["aggregate"]["players"]
        }
        out["truth_advantage"] = {k: (None if np.isnan(v) else float(v)) for k, v in out["truth_advantage"].items()}
    return out


# -- from stored cross-play runs -----------------------------------------------------------------

def _debaters_of(decision: DecisionRow, turns: list[Turn]) -> tuple[str, str] | None:
    """The debaters defending displayed answers 1 and 2.

    Read from `extra.debaters` ([spec for answer 1, spec for answer 2]) when the protocol records it,
    otherwise from the debate turns' `extra.model` (or `extra.agent`) with `defends`.
    """
    deb = decision.extra.debaters or decision.debaters
    if isinstance(deb, dict):
        deb = [deb.get("1") or deb.get(1), deb.get("2") or deb.get(2)]
    if deb and len(deb) == 2 and all(deb):
        return str(deb[0]), str(deb[1])
    found: dict[int, str] = {}
    for t in turns:
        m = t.extra and (t.extra.model or (t.extra.model_extra or {}).get("agent"))
        if t.defends in (1, 2) and m:
            found[int(t.defends)] = str(m)
    if 1 in found and 2 in found:
        return found[1], found[2]
    return None


@dataclass(frozen=True)
class DebateRow:
    """A judged debate's decision with the debaters defending answers 1 and 2 (self-play: the same one)."""

    decision: DecisionRow
    debater_1: str
    debater_2: str


def games_from_runs(runs) -> tuple[list[Game], list[DebateRow]]:
    """Cross-play games (one per valid judged debate between two different debaters, with its
    question as bootstrap unit) and every debate decision with its debaters, self-play included, for
    the Elo-vs-accuracy plot; only debaters who meet another debater are kept."""
    games, rows = [], []
    debates = protocols_where("has_debaters")
    for run in runs:
        for d in run.decisions:
            if d.unjudged or d.protocol not in debates:
                continue
            deb = _debaters_of(d, run.turns.get((d.job_key, d.judge), []))
            if deb is None:
                continue
            ci = int(d.correct_index)
            sides = ("correct", "incorrect") if ci == 1 else ("incorrect", "correct")
            rows.append(DebateRow(d, deb[0], deb[1]))
            if d.answer is None or deb[0] == deb[1]:
                continue
            games.append({"player_1": deb[0], "player_2": deb[1], "winner": int(d.answer),
                          "side_1": sides[0], "side_2": sides[1], "question": f"{d.task}|{d.question_id}",
                          "id": f"{d.run_dir}|{d.job_key}|{d.judge}", "task": d.task,
                          "task_type": d.task_type, "judge": d.judge})
    # a debater who never meets another one has no identifiable rating
    crossing = {p for g in games for p in (g["player_1"], g["player_2"])}
    rows = [r for r in rows if r.debater_1 in crossing and r.debater_2 in crossing]
    return games, rows


def accuracy_by_debater(rows: list[DebateRow]) -> dict[str, dict[str, Any]]:
    """Figure 4's accuracy axis: judge accuracy on a debater's self-play debates (it argues both
    sides). A debater without self-play debates gets accuracy None, never a mixed-opponent figure."""
    from oversight_bench.analysis.stats import accuracy

    players = sorted({p for r in rows for p in (r.debater_1, r.debater_2)})
    return {p: {**accuracy([r.decision for r in rows if r.debater_1 == r.debater_2 == p]), "basis": "self-play"}
            for p in players}


def elo_of_runs(runs) -> dict[str, Any] | None:
    """Elo and each debater's self-play accuracy from loaded runs, as `report` and `leaderboard` show
    it; None where the runs hold no cross-play game between two different debaters."""
    games, rows = games_from_runs(runs)
    if not games or not any(g["player_1"] != g["player_2"] for g in games):
        return None
    out = elo_analysis(games)
    out["accuracy_by_debater"] = accuracy_by_debater(rows)
    return out


def elo_from_store(dirs: Iterable[str | Path], **kw) -> dict[str, Any]:
    """Elo from stored cross-play debate runs: the boundary the `elo` command's runner feeds."""
    from oversight_bench.analysis.load import load_runs

    runs = load_runs(list(dirs), with_turns=True, with_calls=False)
    games, rows = games_from_runs(runs)
    if not games:
        raise BenchError("no cross-play debates found in " + ", ".join(str(d) for d in dirs)
                         + "; expected judged debate decisions naming two different debaters (extra.debaters or turn extra.model)")
    out = elo_analysis(games, **kw)
    out["accuracy_by_debater"] = accuracy_by_debater(rows)
    by_type: dict[str, list] = defaultdict(list)
    for r in rows:
        by_type[r.decision.task_type or "unknown"].append(r)
    out["accuracy_by_debater_and_task_type"] = {t: accuracy_by_debater(v) for t, v in sorted(by_type.items())}
    # Figure 4 is drawn per task type: Elo from that type's games
    out["by_task_type"] = {}
    for t in sorted({g.get("task_type") or "unknown" for g in games}):
        sub = [g for g in games if (g.get("task_type") or "unknown") == t]
        out["by_task_type"][t] = elo_analysis(sub, **kw)
    return out
