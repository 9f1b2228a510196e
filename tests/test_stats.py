"""Statistics checked by simulation: the code's answers are compared with quantities the simulation
knows (true accuracy, true Elo, the null hypothesis), never with a re-derivation of its own formulas."""

from __future__ import annotations

import numpy as np
import pytest

from oversight_bench.analysis import elo as elo_mod
from oversight_bench.analysis import openrole, stats
from helpers import decision_row


def _judge_records(rng, n_questions, mean_acc, replicates=2, invalid=0.0, concentration=4.0, task="t", offset=0):
    """A simulated judge: each question has its own difficulty p_q ~ Beta with mean `mean_acc`;
    its replicates (answer orders, assignments) share p_q, so they are correlated."""
    a, b = mean_acc * concentration, (1 - mean_acc) * concentration
    recs, pq = [], rng.beta(a, b, n_questions)
    for q in range(n_questions):
        for r in range(replicates):
            if rng.random() < invalid:
                recs.append(decision_row(task=task, question_id=f"q{q + offset}", answer=None, correct=None))
                continue
            ok = bool(rng.random() < pq[q])
            recs.append(decision_row(task=task, question_id=f"q{q + offset}", answer=1 if ok else 2, correct=ok))
    return recs, pq


def test_ci_coverage_near_95_percent_for_known_accuracy():
    rng = np.random.default_rng(123)
    true = 0.7
    hits, trials = 0, 400
    for _ in range(trials):
        recs, _ = _judge_records(rng, 80, true, replicates=2, invalid=0.03)
        r = stats.accuracy(recs)
        hits += r["ci_low"] <= true <= r["ci_high"]
    coverage = hits / trials
    assert 0.915 <= coverage <= 0.98, coverage


def test_ci_reports_invalid_rate_and_question_count():
    rng = np.random.default_rng(5)
    recs, _ = _judge_records(rng, 50, 0.6, replicates=4, invalid=0.2)
    r = stats.accuracy(recs)
    assert r["n_records"] == 200
    assert 0.12 < r["invalid_rate"] < 0.28
    assert r["n"] <= 50


def test_naive_per_record_interval_undercovers_with_correlated_replicates():
    """Why replicates are averaged first: treating them as independent is too narrow."""
    rng = np.random.default_rng(7)
    true, trials, naive_hits, paper_hits = 0.7, 300, 0, 0
    for _ in range(trials):
        recs, _ = _judge_records(rng, 60, true, replicates=4, concentration=1.0)
        m, lo, hi = stats.mean_ci([float(r.correct) for r in recs])
        naive_hits += lo <= true <= hi
        r = stats.accuracy(recs)
        paper_hits += r["ci_low"] <= true <= r["ci_high"]
    assert naive_hits / trials < 0.88 < paper_hits / trials


def test_permutation_pvalues_uniform_under_null():
    rng = np.random.default_rng(11)
    pvals = []
    for _ in range(250):
        # the same per-question difficulty drives both protocols: no difference in accuracy
        pq = rng.beta(2, 1, 40)
        a = {f"q{i}": rng.binomial(4, p) / 4 for i, p in enumerate(pq)}
        b = {f"q{i}": rng.binomial(4, p) / 4 for i, p in enumerate(pq)}
        pvals.append(stats.paired_permutation_test(a, b, n_resamples=999, seed=int(rng.integers(1 << 30)))["p_value"])
    pvals = np.array(pvals)
    for alpha in (0.05, 0.1, 0.25, 0.5):
        rate = float(np.mean(pvals <= alpha))
        assert abs(rate - alpha) < 0.06 + alpha * 0.25, (alpha, rate)


def test_permutation_pvalue_small_under_real_difference():
    rng = np.random.default_rng(3)
    debate, _ = _judge_records(rng, 80, 0.82, replicates=2)
    consult, _ = _judge_records(rng, 80, 0.55, replicates=2)
    r = stats.paired_permutation_test(stats.per_question(debate), stats.per_question(consult))
    assert r["n"] == 80 and r["diff"] > 0.15
    assert r["p_value"] < 0.01


def test_calibration_of_a_calibrated_judge_is_good_and_overconfident_is_bad():
    rng = np.random.default_rng(9)
    good, bad = [], []
    for _ in range(4000):
        p = rng.uniform(0.5, 1.0)  # true probability that the judge's top choice is right
        right = rng.random() < p
        ci = 1
        top = 1 if right else 2
        good.append(decision_row(correct_index=ci, probs=[p, 1 - p] if top == 1 else [1 - p, p]))
        q = 0.99
        bad.append(decision_row(correct_index=ci, probs=[q, 1 - q] if top == 1 else [1 - q, q]))
    g, b = stats.calibration(good), stats.calibration(bad)
    assert g["ece"] < 0.03 < 0.15 < b["ece"]
    assert g["brier"] < b["brier"]
    assert sum(x["n"] for x in g["bins"]) == 4000


# -- Elo -------------------------------------------------------------------------------------------

def _simulate_games(rng, ratings, n, scale=500.0, truth_bonus=0.0):
    names = list(ratings)
    games = []
    for _ in range(n):
        i, j = rng.choice(len(names), 2, replace=False)
        a, b = names[i], names[j]
        a_correct = rng.random() < 0.5
        ea = ratings[a] + (truth_bonus if a_correct else -truth_bonus)
        eb = ratings[b] + (-truth_bonus if a_correct else truth_bonus)
        win = 1 if rng.random() < 1 / (1 + 10 ** ((eb - ea) / scale)) else 2
        games.append({"player_1": a, "player_2": b, "winner": win,
                      "side_1": "correct" if a_correct else "incorrect", "side_2": "incorrect" if a_correct else "correct"})
    return games


def test_expected_win_uses_the_papers_scale():
    # the paper's scale of 500, by what it does: 500 points ahead wins 10 of 11 (not by the constant's value)
    assert elo_mod.expected_win(500, 0) == pytest.approx(10 / 11)
    assert elo_mod.expected_win(0, 0) == 0.5


def test_elo_recovers_known_ratings_within_bootstrap_cis():
    rng = np.random.default_rng(2024)
    true = {"gemma": -220.0, "gpt35": -80.0, "pro10": 20.0, "pro15": 120.0, "pro15_bo4": 160.0}
    centre = np.mean(list(true.values()))
    true = {k: v - centre for k, v in true.items()}
    res = elo_mod.fit_elo(_simulate_games(rng, true, 2000), n_bootstrap=500)
    covered = [res["ci_low"][p] <= true[p] <= res["ci_high"][p] for p in true]
    assert sum(covered) >= len(true) - 1, (res["ratings"], res["ci_low"], res["ci_high"])
    assert sorted(true, key=true.get) == sorted(res["ratings"], key=res["ratings"].get)
    for p in true:
        assert abs(res["ratings"][p] - true[p]) < 60


def test_elo_invariant_to_player_and_game_order():
    rng = np.random.default_rng(8)
    games = _simulate_games(rng, {"a": -100.0, "b": 0.0, "c": 100.0}, 400)
    base = elo_mod.fit_elo(games, n_bootstrap=50)
    shuffled = [games[i] for i in rng.permutation(len(games))]
    swapped = [{**g, "player_1": g["player_2"], "player_2": g["player_1"], "winner": 3 - g["winner"],
                "side_1": g["side_2"], "side_2": g["side_1"]} for g in shuffled]
    other = elo_mod.fit_elo(swapped, n_bootstrap=50, players=["c", "a", "b"])
    for p in "abc":
        assert other["ratings"][p] == pytest.approx(base["ratings"][p], abs=1e-6)
        assert other["ci_low"][p] == pytest.approx(base["ci_low"][p], abs=1e-6)
        assert other["ci_high"][p] == pytest.approx(base["ci_high"][p], abs=1e-6)


def test_elo_scale_is_configurable():
    rng = np.random.default_rng(1)
    games = _simulate_games(rng, {"a": -100.0, "b": 100.0}, 300)
    r500 = elo_mod.fit_elo(games, n_bootstrap=0)["ratings"]
    r400 = elo_mod.fit_elo(games, n_bootstrap=0, scale=400.0)["ratings"]
    assert r400["b"] == pytest.approx(r500["b"] * 0.8, rel=1e-4)


def test_correct_and_incorrect_elo_are_separate_players_and_show_truth_advantage():
    rng = np.random.default_rng(4)
    true = {"a": -100.0, "b": 0.0, "c": 100.0}
    res = elo_mod.elo_analysis(_simulate_games(rng, true, 3000, truth_bonus=60.0), n_bootstrap=100)
    assert set(res["by_side"]["players"]) == {f"{p}@{s}" for p in true for s in ("correct", "incorrect")}
    for p in true:
        assert 30 < res["truth_advantage"][p] < 210  # true advantage 120
        lo, hi = res["by_side"]["ci_low"][f"{p}@correct"], res["by_side"]["ci_high"][f"{p}@correct"]
        assert lo < res["by_side"]["ratings"][f"{p}@correct"] < hi


# -- open roles ---------------------------------------------------------------------------------------

def _rec(protocol, qid, order, answer, assignment=None, judge="J", agent="A", task="t", task_type="closed", **extra):
    ci = 1 if order == "correct_first" else 2
    return decision_row(protocol=protocol, question_id=qid, answer_order=order, assignment=assignment, answer=answer,
                        correct_index=ci, judge=judge, agent=agent, task=task, task_type=task_type, extra=extra)


def test_open_consultancy_filter_keeps_the_agents_side():
    recs = []
    for qid in ("q1", "q2"):
        for order in ("correct_first", "correct_second"):
            ci = 1 if order == "correct_first" else 2
            recs.append(_rec("consultancy", qid, order, ci, assignment="correct"))       # judge follows
            recs.append(_rec("consultancy", qid, order, 3 - ci, assignment="incorrect"))  # judge follows
    # the agent (as judge of its own direct QA) gets q1 right and q2 wrong, in both orders
    recs += [_rec("qa_without_article", "q1", "correct_first", 1, judge="A"),
             _rec("qa_without_article", "q1", "correct_second", 2, judge="A"),
             _rec("qa_without_article", "q2", "correct_first", 2, judge="A"),
             _rec("qa_without_article", "q2", "correct_second", 1, judge="A")]
    choices = openrole.agent_choices(recs)
    assert choices == {("A", "t", "q1", "correct_first"): True, ("A", "t", "q1", "correct_second"): True,
                       ("A", "t", "q2", "correct_first"): False, ("A", "t", "q2", "correct_second"): False}
    kept = openrole.filter_assigned(recs, choices)
    assert {(d.question_id, d.assignment) for d in kept} == {("q1", "correct"), ("q2", "incorrect")}
    assert all(d.protocol == "open_consultancy" and d.win for d in kept)
    rows = [r for r in openrole.open_role_metrics(recs) if r["level"] == "task" and r["protocol"] == "open_consultancy"]
    r = rows[0]
    assert r["win_rate"] == 1.0 and r["accuracy"] == 0.5
    assert r["accuracy_agent_correct"] == 1.0 and r["accuracy_agent_incorrect"] == 0.0


def test_open_roles_are_decided_per_question_and_answer_order():
    """§3.2.3: the agent's choice in each answer order selects the assigned run of that order. An
    agent right in one order and wrong in the other is not a tie resolved as "correct"."""
    recs = []
    for order in ("correct_first", "correct_second"):
        ci = 1 if order == "correct_first" else 2
        recs.append(_rec("consultancy", "q1", order, ci, assignment="correct"))
        recs.append(_rec("consultancy", "q1", order, 3 - ci, assignment="incorrect"))
    recs += [_rec("qa_without_article", "q1", "correct_first", 1, judge="A"),    # right in order 1
             _rec("qa_without_article", "q1", "correct_second", 1, judge="A")]   # wrong in order 2
    kept = openrole.filter_assigned(recs, openrole.agent_choices(recs))
    assert {(d.answer_order, d.assignment) for d in kept} == {("correct_first", "correct"),
                                                                    ("correct_second", "incorrect")}
    (row,) = [r for r in openrole.open_role_metrics(recs) if r["level"] == "task"]
    assert row["agent_correct_rate"] == 0.5 and row["n_agent_correct"] == 1 and row["n_agent_incorrect"] == 1


def test_open_role_disagreeing_replicates_drop_out_instead_of_counting_as_correct():
    recs = [_rec("debate", "q1", "correct_first", 1),
            _rec("qa_without_article", "q1", "correct_first", 1, judge="A"),
            _rec("qa_without_article", "q1", "correct_first", 2, judge="A")]  # same order, disagreeing
    assert openrole.agent_choices(recs)[("A", "t", "q1", "correct_first")] is None
    assert openrole.filter_assigned(recs, openrole.agent_choices(recs)) == []
    # an invalid direct-QA answer gives no choice at all
    recs = [_rec("debate", "q1", "correct_first", 1), _rec("qa_without_article", "q1", "correct_first", None, judge="A")]
    assert openrole.filter_assigned(recs, openrole.agent_choices(recs)) == []


def test_open_role_prefers_the_agents_plain_answer_over_a_debiased_one():
    plain = _rec("qa_without_article", "q1", "correct_first", 1, judge="A")
    debiased = _rec("qa_without_article", "q1", "correct_first", 2, judge="A (debiased)").with_(judge_model="A",
                                                                                               judge_debias=True)
    assert openrole.agent_choices([debiased])[("A", "t", "q1", "correct_first")] is False
    assert openrole.agent_choices([debiased, plain])[("A", "t", "q1", "correct_first")] is True


def test_open_debate_filter_marks_protagonist_and_win():
    recs = [_rec("debate", "q1", "correct_first", 1), _rec("debate", "q1", "correct_second", 1),
            _rec("qa_without_article", "q1", "correct_first", 2, judge="A"),   # agent chose wrong
            _rec("qa_without_article", "q1", "correct_second", 1, judge="A")]
    kept = openrole.filter_assigned(recs, openrole.agent_choices(recs))
    assert [d.agent_choice for d in kept] == [2, 1]  # the incorrect answer's displayed position
    assert [d.win for d in kept] == [False, True]
    assert all(d.protagonist_correct is False for d in kept)


def test_open_protocol_fields_inside_extra_and_difficulty_strata():
    recs = [
        _rec("open_consultancy", "e1", "correct_first", 1, agent_choice=1),  # agent right, judge right
        _rec("open_consultancy", "e2", "correct_first", 2, agent_choice=2),  # agent wrong, judge follows (wrong)
        _rec("open_consultancy", "h1", "correct_first", 1, agent_choice=2),  # agent wrong, judge right anyway
        _rec("qa_without_article", "e1", "correct_first", 1), _rec("qa_without_article", "e2", "correct_first", 1),
        _rec("qa_without_article", "h1", "correct_first", 2),
    ]
    assert recs[1].protagonist_correct is False and recs[1].win is True
    (row,) = [r for r in openrole.open_role_metrics(recs) if r["level"] == "task"]
    assert row["source"] == "open_protocol"
    assert row["win_rate"] == pytest.approx(2 / 3)
    assert row["accuracy_agent_correct"] == 1.0 and row["accuracy_agent_incorrect"] == 0.5
    easy, hard = row["by_difficulty"]["judge_qa_correct"], row["by_difficulty"]["judge_qa_incorrect"]
    assert easy["n_agent_correct"] == 1 and easy["accuracy_agent_incorrect"] == 0.0
    assert hard["n"] == 1 and hard["accuracy_agent_incorrect"] == 1.0


def test_every_interval_comes_from_stats():
    """`stats` owns the intervals: report's mean answer position (1..2, not clipped to [0, 1] as
    `mean_ci` clips accuracies) takes `normal_ci`, where it computed one by hand beside `mean_ci`;
    Elo's bootstrap takes `percentile_ci`, where it took numpy's percentiles itself."""
    import statistics
    from pathlib import Path

    from oversight_bench.analysis import stats

    x = [1.0, 2.0, 2.0, 1.5]
    half = stats.Z95 * statistics.stdev(x) / len(x) ** 0.5
    assert stats.normal_ci(x) == (1.625, 1.625 - half, 1.625 + half) and 1.625 + half > 2  # not clipped
    assert stats.normal_ci([]) == (None, None, None) and stats.normal_ci([1.5]) == (1.5, None, None)
    boots = [float(v) for v in range(201)][::-1]  # in any order; 0..200: the k-th percentile is 2k
    assert stats.percentile_ci(boots) == (5.0, 195.0) and stats.percentile_ci(boots, level=50) == (50.0, 150.0)
    assert stats.percentile_ci([]) == (None, None)
    core = Path(stats.__file__).parents[1]
    by_hand = [str(p.relative_to(core)) for p in core.rglob("*.py") if p.name != "stats.py"
               and any(s in p.read_text(encoding="utf-8") for s in ("Z95", "stdev(", "std(ddof", "1.96", "percentile(", "quantile("))]
    assert by_hand == []
