"""Elo as Appendix E describes, checked by simulation: games drawn with the cross-play plan from
debaters of known rating, fitted, and compared with the ratings the simulation knows."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from oversight_bench.analysis import elo as elo_mod
from fake_runs import make_crossplay
from oversight_bench.crossplay import games_per_task, plan_games
from oversight_bench.errors import BenchError
from oversight_bench.questions import Question

from helpers import cli, decision_row, stored_records


def _pools(sizes: dict[str, int]) -> dict[str, list[Question]]:
    return {t: [Question(id=f"{t}-{i}", task=t, task_type="closed", question=f"q{i}", correct="a", incorrect="b")
                for i in range(n)] for t, n in sizes.items()}


def _play(plan, ratings, rng, truth_bonus=0.0, scale=500.0):
    """The judge's verdicts under the Elo model: the correct side's rating is raised by truth_bonus."""
    games = []
    for g in plan:
        ci = 1 if g.answer_order == "correct_first" else 2
        e = [ratings[d] + (truth_bonus if k + 1 == ci else -truth_bonus) for k, d in enumerate(g.debaters)]
        win = 1 if rng.random() < elo_mod.expected_win(e[0], e[1], scale) else 2
        games.append({"player_1": g.debaters[0], "player_2": g.debaters[1], "winner": win,
                      "side_1": "correct" if ci == 1 else "incorrect", "side_2": "correct" if ci == 2 else "incorrect",
                      "question": f"{g.question.task}|{g.question.id}", "task": g.question.task})
    return games


# -- the plan ---------------------------------------------------------------------------------------

def test_plan_equal_per_dataset_distinct_units_and_selfplay():
    debaters = ["gemma", "gpt35", "pro10", "pro15", "pro15_bo4"]
    pools = _pools({"quality": 40, "mmlu": 200, "gpqa": 60})
    plan = plan_games(pools, debaters, 512, seed=3)
    cross = [g for g in plan if not g.selfplay]
    n = games_per_task(512, 3)
    assert n == 171 and len(cross) == 3 * n  # 512 rounded up so that every dataset gives the same number
    assert Counter(g.question.task for g in cross) == {"quality": n, "mmlu": n, "gpqa": n}
    units = [(g.question.task, g.question.id, g.pair) for g in cross]
    assert len(set(units)) == len(units)  # every game a distinct (question, pair) draw
    # a big enough pool gives every game its own question; a small one spreads its questions evenly
    by_task = {t: Counter(g.question.id for g in cross if g.question.task == t) for t in pools}
    assert len(by_task["mmlu"]) == n and set(by_task["mmlu"].values()) == {1}
    assert len(by_task["quality"]) == 40 and set(by_task["quality"].values()) <= {4, 5}
    for t in pools:  # pairs share each task's games equally; each side of a pair defends the truth in turn
        per_pair = Counter(g.pair for g in cross if g.question.task == t)
        assert len(per_pair) == 10 and max(per_pair.values()) - min(per_pair.values()) <= 1
        sides = Counter((g.pair, g.correct_debater) for g in cross if g.question.task == t)
        for pair in per_pair:
            assert abs(sides[(pair, pair[0])] - sides[(pair, pair[1])]) <= 1
    orders = Counter(g.answer_order for g in cross)
    assert 0.4 < orders["correct_first"] / len(cross) < 0.6
    # self-play: every debater on both sides of the same (question, order) set in every task
    selfplay = [g for g in plan if g.selfplay]
    per_debater = {d: sorted((g.question.task, g.question.id, g.answer_order) for g in selfplay if g.debaters[0] == d)
                   for d in debaters}
    assert all(per_debater[d] == per_debater[debaters[0]] for d in debaters)
    assert Counter(t for t, _, _ in per_debater["gemma"]) == {t: math.ceil(512 / 15) for t in pools}
    # pure: the same inputs give the same plan, another seed another one, input order does not matter
    assert plan_games(pools, debaters[::-1], 512, seed=3) == plan
    assert plan_games(pools, debaters, 512, seed=4) != plan


def test_plan_errors():
    with pytest.raises(BenchError, match="two different debaters"):
        plan_games(_pools({"t": 10}), ["a", "a"], 8)
    with pytest.raises(BenchError, match="task t has 3 question"):
        plan_games(_pools({"t": 3}), ["a", "b", "c"], 10)  # 3 questions x 3 pairs = 9 distinct units < 10
    with pytest.raises(BenchError, match="self-play"):
        plan_games(_pools({"t": 3}), ["a", "b"], 3, selfplay=4)


# -- the fit ----------------------------------------------------------------------------------------

def test_known_ratings_inside_bootstrap_ci_at_least_90_percent_of_the_time():
    """Repeated simulations with the paper's design (equal games per dataset, distinct (question,
    pair) draws): each fitted 95% interval should hold the true rating about 95% of the time."""
    true = {"gemma": -200.0, "gpt35": -60.0, "pro10": 20.0, "pro15": 100.0, "pro15_bo4": 140.0}
    true = {k: v - np.mean(list(true.values())) for k, v in true.items()}
    pools = _pools({"quality": 50, "mmlu": 50, "gpqa": 50})
    rng = np.random.default_rng(2407)
    hits, estimates, widths = [], [], []
    for sim in range(40):  # 40 simulations x 5 players; 100 bootstrap seeds each to keep the test fast
        plan = [g for g in plan_games(pools, list(true), 400, seed=sim) if not g.selfplay]
        res = elo_mod.fit_elo(_play(plan, true, rng), n_bootstrap=100, seed=sim)
        assert res["bootstrap_unit"] == "question" and res["n_units"] == 150
        hits += [res["ci_low"][p] <= e <= res["ci_high"][p] for p, e in true.items()]
        estimates.append([res["ratings"][p] for p in true])
        widths.append([res["ci_high"][p] - res["ci_low"][p] for p in true])
    assert np.mean(hits) >= 0.90, np.mean(hits)
    # and not by being too wide: intervals about as wide as the spread of the estimates themselves
    ratio = np.mean(widths) / np.mean(2 * 1.96 * np.std(estimates, axis=0, ddof=1))
    assert 0.75 < ratio < 1.3, ratio


def test_correct_and_incorrect_elo_recover_the_truth_advantage():
    true = {"a": -100.0, "b": 0.0, "c": 100.0}
    pools = _pools({"t1": 600, "t2": 600})
    # 3,000 games: with three debaters the six split players form a single cycle, so each debater's
    # own advantage is known far less precisely than the ratings
    plan = [g for g in plan_games(pools, list(true), 3000, seed=1) if not g.selfplay]
    res = elo_mod.elo_analysis(_play(plan, true, np.random.default_rng(5), truth_bonus=60.0), n_bootstrap=100)
    assert set(res["by_side"]["players"]) == {f"{p}@{s}" for p in true for s in ("correct", "incorrect")}
    for p in true:  # true advantage 120
        assert 40 < res["truth_advantage"][p] < 200
        assert res["by_side"]["ci_low"][f"{p}@correct"] < 60 + true[p] < res["by_side"]["ci_high"][f"{p}@correct"]


def test_perfect_separation_gives_finite_ratings():
    games = [{"player_1": "strong", "player_2": "weak", "winner": 1, "question": f"q{i}"} for i in range(10)]
    res = elo_mod.fit_elo(games, n_bootstrap=50)
    gap = res["ratings"]["strong"] - res["ratings"]["weak"]
    # one virtual draw: 10.5 wins out of 11, the gap whose expected win rate is 10.5/11
    assert gap == pytest.approx(500 * math.log10(10.5 / 0.5), abs=0.5)
    assert all(math.isfinite(v) for v in (*res["ci_low"].values(), *res["ci_high"].values()))
    assert "virtual drawn game" in res["prior"]
    bare = elo_mod.fit_elo(games, n_bootstrap=0, prior_games=0)
    assert bare["ratings"]["strong"] - bare["ratings"]["weak"] > 3 * gap and "none" in bare["prior"]
    with pytest.raises(BenchError, match="prior_games"):
        elo_mod.fit_elo(games, prior_games=-1)


def test_prior_is_weak_with_tens_of_games_per_pair():
    true = {"a": -100.0, "b": 0.0, "c": 100.0}
    plan = [g for g in plan_games(_pools({"t": 300}), list(true), 300, seed=2) if not g.selfplay]
    games = _play(plan, true, np.random.default_rng(9))
    with_prior = elo_mod.fit_elo(games, n_bootstrap=0)["ratings"]
    bare = elo_mod.fit_elo(games, n_bootstrap=0, prior_games=0)["ratings"]
    for p in true:  # 100 games a pair: the virtual draw moves ratings by about 1%
        assert abs(with_prior[p] - bare[p]) < 0.03 * abs(bare[p]) + 1


def test_bootstrap_resamples_questions_not_games():
    """Games that share a question move together: when every question is replayed by all pairs with
    the same (question-driven) outcome, the question bootstrap is wider than a game bootstrap."""
    rng = np.random.default_rng(0)
    games = []
    for q in range(30):
        strong_wins = rng.random() < 0.6  # the question decides the winner for every pair
        for other in ("b", "c", "d"):
            games.append({"player_1": "a", "player_2": other, "winner": 1 if strong_wins else 2, "question": f"q{q}"})
    by_q = elo_mod.fit_elo(games, n_bootstrap=300)
    by_game = elo_mod.fit_elo([{k: v for k, v in g.items() if k != "question"} for g in games], n_bootstrap=300)
    assert by_q["bootstrap_unit"] == "question" and by_game["bootstrap_unit"] == "game"
    width = lambda r: r["ci_high"]["a"] - r["ci_low"]["a"]  # noqa: E731
    assert width(by_q) > 1.3 * width(by_game)


def test_selfplay_is_the_accuracy_axis_and_not_an_elo_game(tmp_path):
    run = make_crossplay(tmp_path / "xp", {"weak": -100.0, "mid": 0.0, "strong": 100.0}, n_games=120, truth_bonus=80)
    res = elo_mod.elo_from_store([run], n_bootstrap=20)
    agg = res["aggregate"]
    assert agg["n_games"] == 120 and agg["bootstrap_unit"] == "question"
    acc = res["accuracy_by_debater"]
    assert set(acc) == {"weak", "mid", "strong"}
    for p, a in acc.items():
        assert a["basis"] == "self-play" and a["n"] == math.ceil(120 / 6) * 2  # 2 tasks, same questions for all
        assert a["accuracy"] > 0.5  # the correct side is favoured by 160 points when X argues both sides


def test_no_fallback_to_mixed_opponent_accuracy():
    rows = [elo_mod.DebateRow(decision_row(question_id="q1", answer=1, correct=True, answer_order="correct_first"), "a", "b"),
            elo_mod.DebateRow(decision_row(question_id="q2", answer=2, correct=False, answer_order="correct_first"), "a", "a")]
    acc = elo_mod.accuracy_by_debater(rows)
    assert acc["a"]["accuracy"] == 0.0 and acc["a"]["n"] == 1
    assert acc["b"]["accuracy"] is None and acc["b"]["n"] == 0


def test_cli_prints_players_games_ratings_and_prior(tmp_path):
    run = make_crossplay(tmp_path / "xp", {"a": 0.0, "b": 200.0}, n_games=60)
    res = cli("elo", str(run), "--output", str(tmp_path / "elo"), "--bootstrap", "20")
    assert res.exit_code == 0, res.output
    assert "60 cross-play games" in res.output and "bootstrap over questions" in res.output
    assert "prior: 1 virtual drawn game(s) per pair" in res.output
    lines = {ln.split()[0]: ln for ln in res.output.splitlines() if ln.split() and ln.split()[0] in ("a", "b")}
    data = json.loads((tmp_path / "elo" / "elo.json").read_text())["aggregate"]
    for p in ("a", "b"):
        assert f"{data['ratings'][p]:.1f}" in lines[p] and f"[{data['ci_low'][p]:.1f}, {data['ci_high'][p]:.1f}]" in lines[p]
        assert " 60 " in lines[p]  # games played
    bad = cli("elo", str(run), "--output", str(tmp_path / "e2"), "--prior-games", "-1")
    assert bad.exit_code == 2 and "--prior-games -1.0 is not valid" in bad.stderr and not (tmp_path / "e2").exists()


# -- elo is a command like run: shared flags, the end-of-run summary, exit codes ---------------------

XP = ["--judge", "scripted:default", "--debaters", "scripted:default,scripted:default,delay=0", "--tasks", "boolq,mmlu",
      "--pairings", "4", "--bootstrap", "5", "--quiet"]


def _games(crossplay_dir) -> list[tuple]:
    from oversight_bench.rundir.store import Store

    store = Store.open(crossplay_dir)
    try:
        return sorted((d["task"], d["question_id"], tuple(d["extra"]["debaters"]), d["answer_order"])
                      for d in stored_records(store, "decision"))
    finally:
        store.close()


def test_failed_debates_exit_1_with_the_summary_and_no_fit(tmp_path):
    from model_adapters.scripted import SCRIPTS, register_script

    register_script("elo_no_answer", lambda messages, n, seed: [None] * n)  # a server answering with null content
    try:
        res = cli("elo", *XP[2:], "--judge", "scripted:elo_no_answer", "--output", str(tmp_path / "elo"))
    finally:
        SCRIPTS.pop("elo_no_answer")
    assert res.exit_code == 1, res.output
    assert "judge accuracy on valid answers" in res.stdout  # run's end-of-run table
    failed = [ln for ln in res.stdout.splitlines() if ln.startswith("jobs: ")]
    assert failed and failed[0].startswith("jobs: 0 done, 0 already stored, ") and " 0 failed" not in failed[0]
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "job(s) failed" in last and "run the same command again" in last
    assert not (tmp_path / "elo" / "elo.json").exists()  # no Elo over an incomplete set of games


def test_all_games_done_exit_0_with_the_summary(tmp_path):
    res = cli("elo", *XP, "--output", str(tmp_path / "elo"))
    assert res.exit_code == 0, res.output
    assert "judge accuracy on valid answers" in res.stdout and ", 0 failed;" in res.stdout
    assert (tmp_path / "elo" / "elo.json").exists()


@pytest.mark.parametrize("args, yaml_text, needle", [
    (["--pairings", "0"], None, "elo: --pairings 0 is not valid"),
    (["--scale", "0"], None, "elo: --scale 0.0 is not valid (input should be greater than 0); expected the Elo scale"),
    (["--selfplay", "-1"], None, "expected self-play questions per task"),
    (["--limit", "2"], None, "not both"),
    (["--concurrency", "0"], None, "elo: --concurrency 0 is not valid"),
    (["--data-dir", "{tmp}/no-data"], None, "--data-dir: data directory"),
    ([], "scale: big\n", "field scale='big' is not valid"),
    ([], "debaters: [a]\ncolour: red\n", "unknown field 'colour'; expected one of"),
    ([], "tasks: [unclosed\n", "invalid YAML at line"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, yaml_text, needle):
    cfg = []
    if yaml_text is not None:
        (tmp_path / "elo.yaml").write_text(yaml_text)
        cfg = ["--config", str(tmp_path / "elo.yaml")]
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    res = cli("elo", *XP, *args, *cfg, "--output", str(tmp_path / "elo"))
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr, res.stderr
    assert not (tmp_path / "elo").exists()


def test_seed_changes_the_drawn_games_and_flags_match_the_config_file(tmp_path):
    runs = {}
    for seed in ("0", "1"):
        res = cli("elo", *XP, "--seed", seed, "--output", str(tmp_path / f"s{seed}"))
        assert res.exit_code == 0, res.output
        runs[seed] = _games(tmp_path / f"s{seed}" / "crossplay")
    assert runs["0"] and runs["0"] != runs["1"]
    assert json.loads((tmp_path / "s1" / "crossplay" / "config.json").read_text())["seed"] == 1
    # the same settings from a file: the same games
    (tmp_path / "elo.yaml").write_text("judge: scripted:default\ndebaters: [scripted:default, 'scripted:default,delay=0']\n"
                                       "tasks: [boolq, mmlu]\npairings: 4\nseed: 1\nbootstrap: 5\n")
    res = cli("elo", "--config", str(tmp_path / "elo.yaml"), "--quiet", "--output", str(tmp_path / "file"))
    assert res.exit_code == 0, res.output
    assert _games(tmp_path / "file" / "crossplay") == runs["1"]


def test_cache_from_reuses_the_stored_calls(tmp_path):
    first = cli("elo", *XP, "--output", str(tmp_path / "a"))
    assert first.exit_code == 0, first.output
    again = cli("elo", *XP, "--cache-from", str(tmp_path / "a" / "crossplay"), "--output", str(tmp_path / "b"))
    assert again.exit_code == 0, again.output
    line = [ln for ln in again.stdout.splitlines() if ln.startswith("jobs: ")][0]
    assert "model calls: 0," in line and "cache hits: 0" not in line, line
