"""Synthetic run directories with known judge accuracies, for tests of the analysis end to end
without any model: opened through the run-directory module (`rundir.WritableRun`) and written
through the ordinary store API. Protocol, task and speaker names are the built-in plugins'."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from oversight_bench.questions import ORDERS, Question
from oversight_bench.rundir import Store, WritableRun

TASKS = {"quality": "extractive", "boolq": "extractive", "mmlu": "closed"}
ACCURACY = {"qa_without_article": 0.6, "qa_with_article": 0.9, "consultancy": 0.65, "debate": 0.8}


def _article(i: int) -> str:
    return f"Story {i}. The ship landed on the red moon at dawn. Captain Vela opened the hatch and saw the blue sands."


def _call(store: Store, rng, key: str, model: str, role: str, ctx: dict[str, Any], tokens: int) -> None:
    store.put_call(key, model=model, request={"k": key}, response={"text": "x"}, context={"role": role, **ctx},
                   prompt_tokens=tokens, completion_tokens=tokens // 10, latency_s=float(rng.uniform(0.1, 0.5)))


def make_run(directory: str | Path, *, judge: str = "sim:judge-a", agent: str = "sim:agent", n_questions: int = 12,
             accuracy: dict[str, float] | None = None, seed: int = 0, qa_samples: int = 7,
             agent_accuracy: float = 0.7) -> Path:
    """A run with QA (with stored majority-vote samples), consultancy, debate (with passages),
    open consultancy/debate (outcome fields in `extra`), judge probabilities and call records."""
    acc = {**ACCURACY, **(accuracy or {})}
    rng = np.random.default_rng(seed)
    run = WritableRun(directory)
    store = run.store
    try:
        run.begin({"judge": judge, "agent": agent, "seed": seed, "options": {"rounds": 2},
                   "versions": {"oversight-bench": "test"}, "commit": "synthetic", "started": "2026-01-01T00:00:00"},
                  {"kind": "synthetic", "judge": judge, "agent": agent, "seed": seed})
        qs = []
        for task, ttype in TASKS.items():
            for i in range(n_questions):
                qs.append(Question(id=f"{task}-{i}", task=task, task_type=ttype, question=f"What did the captain see ({task} {i})?",
                                   correct="blue sands", incorrect="red dust", article=_article(i) if ttype == "extractive" else None))
        store.put_questions(qs)
        for q in qs:
            agent_right = bool(rng.random() < agent_accuracy)
            for proto, p in acc.items():
                if proto == "qa_with_article" and q.task_type != "extractive":
                    continue
                assignments = ["correct", "incorrect"] if proto == "consultancy" else [None]
                for assignment in assignments:
                    for order in ORDERS:
                        ci = 1 if order == "correct_first" else 2
                        answers = list(q.answers(order))
                        fields = {"judge": judge, "agent": agent, "protocol": proto, "task": q.task, "question_id": q.id,
                                  "assignment": assignment, "answer_order": order}
                        ctx = {k: fields[k] for k in ("protocol", "task", "question_id", "assignment", "answer_order")}
                        key = f"{proto}|{q.task}|{q.id}|{assignment or '-'}|{order}"
                        pc = p if assignment != "incorrect" else p - 0.15
                        turns = []
                        if proto in ("consultancy", "debate"):
                            for rnd in (1, 2):
                                sides = [ci if assignment == "correct" else 3 - ci] if proto == "consultancy" else [1, 2]
                                for side in sides:
                                    speaker = "Consultant" if proto == "consultancy" else ("Alice" if side == 1 else "Bob")
                                    quote = "<v_passage>saw the blue sands</v_passage>" if side == ci else "<u_passage>red dust everywhere</u_passage>"
                                    text = f"I defend answer {side}. The story says {quote}."
                                    turns.append({"round": rnd, "role": "debater" if proto == "debate" else "consultant",
                                                  "speaker": speaker, "content": text, "shown": text, "defends": side,
                                                  "extra": {"model": agent}})
                                    _call(store, rng, f"{key}|{rnd}|{side}", agent, "agent", ctx, 300)
                        is_invalid = rng.random() < 0.03
                        right = bool(rng.random() < pc)
                        ans = None if is_invalid else (ci if right else 3 - ci)
                        conf = float(np.clip(rng.normal(0.75, 0.1), 0.5, 0.99))
                        probs = None
                        if ans is not None:
                            probs = [conf, 1 - conf] if ans == 1 else [1 - conf, conf]
                        extra: dict[str, Any] = {}
                        if proto == "qa_without_article" and qa_samples:
                            extra["samples"] = [int(ci if rng.random() < p else 3 - ci) for _ in range(qa_samples)]
                        decision = {"raw": "" if ans is None else f"Answer: {ans}", "answer": ans,
                                    "correct": None if ans is None else ans == ci, "probs": probs, "extra": extra,
                                    "correct_index": ci, "answers": answers}
                        _call(store, rng, f"{key}|judge|{judge}", judge, "judge", ctx, 500)
                        store.write_job(key, fields, turns, decision)
                        if proto in ("consultancy", "debate") and (proto == "debate" or assignment == ("correct" if agent_right else "incorrect")):
                            side = ci if agent_right else 3 - ci
                            oproto = "open_" + proto
                            okey = f"{oproto}|{q.task}|{q.id}|{'protagonist'}|{order}"
                            ofields = {**fields, "protocol": oproto, "assignment": "correct" if agent_right else "incorrect"}
                            odec = {**decision, "extra": {"agent_choice": side, "protagonist_correct": agent_right,
                                                          "win": None if ans is None else ans == side}}
                            store.write_job(okey, ofields, turns, odec)
    finally:
        run.close()
    return Path(directory)


def make_crossplay(directory: str | Path, ratings: dict[str, float], *, n_games: int = 600, judge: str = "sim:judge-a",
                   truth_bonus: float = 0.0, scale: float = 500.0, seed: int = 0,
                   tasks: dict[str, str] | None = None) -> Path:
    """One-round debates between debaters of known Elo, planned as `run_crossplay` plans them
    (`n_games` cross-play pairings over `tasks`, plus self-play); the correct side gets `truth_bonus`."""
    from oversight_bench.crossplay import games_per_task, plan_games

    rng = np.random.default_rng(seed)
    tasks = tasks or {"quality": "extractive", "mmlu": "closed"}
    per_task = games_per_task(n_games, len(tasks))
    pools = {t: [Question(id=f"x-{t}-{i}", task=t, task_type=tt, question=f"q{i}", correct="a", incorrect="b",
                          article="a b" if tt == "extractive" else None) for i in range(per_task)]
             for t, tt in tasks.items()}
    run = WritableRun(directory)
    store = run.store
    try:
        run.begin({"judge": judge, "agent": "crossplay", "seed": seed, "commit": "synthetic"},
                  {"kind": "synthetic", "judge": judge, "seed": seed})
        store.put_questions([q for qs in pools.values() for q in qs])
        for g in plan_games(pools, sorted(ratings), n_games, seed):
            q, (d1, d2), order = g.question, g.debaters, g.answer_order
            ci = 1 if order == "correct_first" else 2
            e1 = ratings[d1] + (truth_bonus if ci == 1 else -truth_bonus)
            e2 = ratings[d2] + (truth_bonus if ci == 2 else -truth_bonus)
            p1 = 1 / (1 + 10 ** ((e2 - e1) / scale))
            ans = 1 if rng.random() < p1 else 2
            fields = {"judge": judge, "agent": f"{d1} vs {d2}", "protocol": "debate", "task": q.task, "question_id": q.id,
                      "assignment": None, "answer_order": order}
            turns = [{"round": 1, "role": "debater", "speaker": s, "content": f"arg {k}", "shown": f"arg {k}", "defends": k,
                      "extra": {"model": m}} for k, s, m in ((1, "Alice", d1), (2, "Bob", d2))]
            store.write_job(f"debate|{q.task}|{q.id}|-|{order}|{d1} vs {d2}", fields, turns,
                            {"raw": f"Answer: {ans}", "answer": ans, "correct": ans == ci, "probs": None,
                             "extra": {"debaters": [d1, d2]}, "correct_index": ci, "answers": list(q.answers(order))})
    finally:
        run.close()
    return Path(directory)


def legacy_board(board: str | Path) -> list[Path]:
    """Turn a board built now into one an earlier build wrote (schema v2): one human `reference` per
    cell, no room links or per-cell deviations, and per (protocol, scope) a transcript page with, beside
    it, the data a later build renders it again from when it carries the cell. Returns the pages."""
    import hashlib
    import json
    import re

    board = Path(board)
    res = json.loads((board / "results.json").read_text())
    res["schema"] = "oversight-bench/leaderboard/v2"
    tdir = board / "transcripts"
    tdir.mkdir(exist_ok=True)
    pages = set()
    for row in res["judges"]:
        row.pop("about", None)
        for key, c in row["cells"].items():
            refs = c.pop("references", None)
            if refs:
                c["reference"] = refs[0]
            for f in ("rooms", "deviations", "on_model_rooms", "no_link"):
                c.pop(f, None)
            slug = re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-") + "-" + hashlib.sha1(key.encode()).hexdigest()[:8]
            c["transcripts"] = f"transcripts/{slug}.html"
            room = {"id": f"{slug}-r1", "question": "What did the captain see?", "protocol": c["protocol"], "task": "quality",
                    "assignment": "–", "answer_order": "correct_first", "agent": "sim:agent",
                    "answers": [{"text": "blue sands", "correct": True}, {"text": "red dust", "correct": False}],
                    "turns": [{"role": "debater", "round": 1, "speaker": "Alice", "defends": 1, "marks": ["[cut at 90 tokens]"],
                               "text": "She <v_passage>saw the blue sands</v_passage>."}],
                    "verdicts": [{"judge": row["judge"], "answer": 1, "correct": True, "probs": [0.8, 0.2]}]}
            data = {"schema": "oversight-bench/leaderboard-page/v1", "title": f"{key} transcripts", "heading": key,
                    "rooms": [room], "n_rooms": 1, "judges": row["judge"]}
            (tdir / f"{slug}.json").write_text(json.dumps(data))
            (tdir / f"{slug}.html").write_text(f"<p>{key}: an earlier build's page</p>")
            pages.add(tdir / f"{slug}.html")
    (board / "results.json").write_text(json.dumps(res, indent=1))
    (board / "rooms-cells.json").unlink(missing_ok=True)
    return sorted(pages)
