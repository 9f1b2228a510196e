"""Peer transcripts as ordinary run directories, so `report` measures their judges and
`judge --from` can re-judge the very transcripts human judges saw.

* `import_nyu_debate`: Michael et al. 2023 ("Debate Helps Supervise Unreliable Experts") rooms from
  `debates_official.tar.xz` + `debates-metadata.jsonl`. A room's verdict is its live judge's final
  reported belief (`judgingInfo.finalJudgement`, else the last belief in the transcript); rooms
  without a live verdict (unfinished, or judged offline only) are skipped and counted.
* `import_llm_debate`: the Khan et al. 2024 `llm_debate` CSV (its `transcript` JSON column).

Each room becomes one `Job` whose variant is the room's name (one question can have several rooms),
so re-judging keeps the source's job key. The records are written through the pipeline as an
`ImportPlan` (already-complete jobs, no model calls) into a new run directory. Quotes become `<v_passage>` (NYU quotes are spans of the story, so
verified by construction; llm_debate quotes are checked by exact substring) or `<u_passage>`.

Here the files are read and the records made; the text rules are `quotes`', the mirrored rooms
`mirror`'s, and what an import declares of its source (settings, differences, counts) `source_settings`'.
"""

from __future__ import annotations

import hashlib
import re
import lzma
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

from oversight_bench.api import (CONSULTANT, JUDGE, BenchError, ImportPlan, Job, Question, Record, execute,
                                 source_debater)
from transcript_suites.mirror import mirrored, swap_debater_names
from transcript_suites.quotes import detokenize, nyu_render, spans_article, squash, verify_quotes
from transcript_suites.source_settings import (KHAN_2024_REPORTED, base_config, llm_debate_settings, nyu_counts,
                                               nyu_settings)
from transcript_suites.untrusted import finite_belief, read_csv_rows, read_file, read_json, read_member, reverify

#: the two importers, and the names other code takes from here (the suites, the tests)
__all__ = ["NYU_JUDGE", "KHAN_2024_REPORTED", "detokenize", "import_llm_debate", "import_nyu_debate", "mirrored",
           "swap_debater_names", "verify_quotes"]

NYU_JUDGE = "human:nyu-2023"


def _qid(prefix: str, *parts: str) -> str:
    return f"{prefix}-{parts[0]}-{hashlib.sha1('|'.join(parts).encode()).hexdigest()[:10]}"


def _write(output: str | Path, config: dict, questions: list[Question], records: list[Record],
           skipped: dict[str, dict[str, int]]) -> None:
    """The import's records into a new run directory, through the one pipeline; every turn's shown
    text re-verified against the article the import carries first (`reverify`)."""
    norm = {q.id: squash(q.article or "") for q in questions}
    for r in records:
        for t in r.turns:
            t["shown"] = reverify(t.get("shown"), norm.get(r.job.question.id, ""), spans_article)
    execute(ImportPlan(str(output), config, questions, records, skipped), progress=False)


# -- NYU 2023 --------------------------------------------------------------------------------------

def _read_nyu(path: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    tar_p, meta_p = path / "debates_official.tar.xz", path / "debates-metadata.jsonl"
    for p in (tar_p, meta_p):
        if not p.exists():
            raise BenchError(f"{path} is not the NYU debate dataset: expected {p.name} there (julianmichael/debate pub/)")
    meta = {}
    try:
        lines = read_file(meta_p, "NYU metadata").decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise BenchError(f"{meta_p}: cannot read it ({exc}); expected UTF-8 JSON lines") from None
    for i, line in enumerate(lines, start=1):
        if line.strip():
            try:
                m = read_json(line, f"{meta_p} line {i}", "a JSON object with a 'name'")
                meta[m["name"]] = m
            except (KeyError, TypeError) as exc:
                raise BenchError(f"{meta_p} line {i}: cannot read it ({_why(exc)}); expected a JSON object with a 'name'") from None
    rooms = {}
    name = None
    try:
        with tarfile.open(tar_p) as tar:
            for member in tar.getmembers():
                name = member.name
                if member.isfile() and member.name.startswith("debates/official/") and member.name.endswith(".json"):
                    rooms[Path(member.name).stem] = read_json(read_member(tar, member), f"{tar_p} at {name}", "a JSON room")
    except (tarfile.TarError, EOFError, OSError, ValueError, lzma.LZMAError) as exc:
        at = f" at {name}" if name else ""
        raise BenchError(f"{tar_p}{at}: cannot read it ({_why(exc)}); expected the NYU tar.xz of JSON rooms") from None
    return meta, rooms


def _why(exc: BaseException) -> str:
    """An exception as a short reason: a KeyError names the missing field."""
    if isinstance(exc, KeyError):
        return f"no field {exc.args[0]!r}" if exc.args else "a missing field"
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:200]


#: what garbage inside a well-formed file raises while a room or row is read
_GARBAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def import_nyu_debate(path: str | Path, output: str | Path, *, paper_only: bool = False, task: str = "quality",
                      both_orders: bool = False) -> dict[str, Any]:
    """Write the NYU rooms with a live verdict into a new run directory; return counts.

    `both_orders`: each debate is stored a second time, unjudged, with the answers in the other
    order and the debaters' names swapped with them (`mirrored`), so a re-judge meets every debate in
    both orders and under both names (the `nyu-2023` suite does). Consultancies are not mirrored:
    another judge cannot stand in for the live one the consultant answered."""
    path = Path(path)
    if not path.is_dir():
        raise BenchError(f"NYU debate path {path} is not a folder; expected quality/michael2023_debates/")
    meta, rooms = _read_nyu(path)
    skipped: Counter = Counter()
    jobs, questions = [], {}
    name = None
    try:
        for name in sorted(rooms):
            room, m = rooms[name], meta.get(name)
            if m is None:
                skipped["no metadata"] += 1
                continue
            if paper_only and not m.get("includedInPaper"):
                skipped["not included in paper"] += 1
                continue
            setup = room["setup"]
            result = (m.get("status") or {}).get("Complete", {}).get("result") or {}
            final = (result.get("judgingInfo") or {}).get("finalJudgement")
            roles = setup.get("roles") or {}
            live_judge = roles.get(JUDGE)
            if not live_judge:
                skipped["no live judge"] += 1
                continue
            if final is None:
                beliefs = [r["JudgeFeedback"]["distribution"] for r in room["rounds"] if "JudgeFeedback" in r and r["JudgeFeedback"].get("endDebate")]
                final = beliefs[-1] if beliefs else None
            if final is None:
                skipped["no final verdict (unfinished)"] += 1
                continue
            src = setup["sourceMaterial"]
            src = src.get("QuALITYSourceMaterial") or next(iter(src.values()))
            tokens = src.get("contents") or []
            answers, ci0 = setup["answers"], int(setup["correctAnswerIndex"])
            correct, incorrect = answers[ci0], answers[1 - ci0]
            qid = _qid("nyu", str(src.get("articleId")), setup["question"])
            if qid not in questions:
                questions[qid] = Question(id=qid, task=task, task_type="extractive", question=setup["question"],
                                          correct=correct, incorrect=incorrect, article=detokenize(tokens),
                                          meta={"source": "michael2023", "article_id": src.get("articleId"), "title": src.get("title")})
            is_debate = bool(m["setting"]["isDebate"])
            is_human = bool(m["setting"]["isHuman"])
            debaters = {k: v for k, v in roles.items() if k.startswith("Debater")}
            answer_order = "correct_first" if ci0 == 0 else "correct_second"
            protocol = "debate" if is_debate else "consultancy"
            assignment = None
            if not is_debate:
                defends = 1 if source_debater(1) in debaters else 2
                assignment = "correct" if defends == ci0 + 1 else "incorrect"
            turns, rnd = [], 0
            role = "debater" if is_debate else "consultant"
            for r in room["rounds"]:
                if "JudgeFeedback" in r:
                    jf = r["JudgeFeedback"]
                    if jf.get("endDebate"):
                        continue  # the verdict itself: kept in the decision, not shown to a re-judge
                    text, shown = nyu_render((jf.get("feedback") or {}).get("content") or [], tokens)
                    if text.strip():
                        turns.append({"round": rnd, "role": "judge", "speaker": JUDGE, "content": text, "shown": shown,
                                      "defends": None, "extra": {"belief": jf.get("distribution"), "human": True}})
                elif "SimultaneousSpeeches" in r or "SequentialSpeeches" in r:
                    rnd += 1
                    kind = "simultaneous" if "SimultaneousSpeeches" in r else "sequential"
                    speeches = next(iter(r.values()))["speeches"]
                    for key in sorted(speeches, key=int):
                        sp = speeches[key]
                        text, shown = nyu_render(sp.get("content") or [], tokens)
                        turns.append({"round": rnd, "role": role, "speaker": source_debater(int(key) + 1) if is_debate else CONSULTANT,
                                      "content": text, "shown": shown, "defends": int(key) + 1,
                                      "extra": {"turn_style": kind, "author": sp.get("speaker"),
                                                "model": "gpt-4" if not is_human else "human"}})
            p = finite_belief(final, f"{path / 'debates_official.tar.xz'}: room {name}")
            ans = None if abs(p[0] - p[1]) < 1e-9 else (1 if p[0] > p[1] else 2)
            decision = {
                "raw": f"final belief {p}", "answer": ans, "correct": None if ans is None else ans == ci0 + 1,
                "probs": p, "correct_index": ci0 + 1, "answers": list(answers),
                "extra": {"room": name, "judge_id": live_judge, "debaters": {k: v for k, v in debaters.items()},
                          "included_in_paper": bool(m.get("includedInPaper")), "is_human_debate": is_human,
                          "ended_by": next(iter(result.get("endedBy") or {"unknown": 0})),
                          "num_continues": (result.get("judgingInfo") or {}).get("numContinues"),
                          "judge_reward": (result.get("judgingInfo") or {}).get("judgeReward"),
                          "source": "michael2023"},
            }
            job = Job(protocol, questions[qid], answer_order, assignment, variant=name)
            jobs.append(Record(job, NYU_JUDGE, "human" if is_human else "gpt-4", turns, decision))
            if both_orders and is_debate:
                jobs.append(mirrored(jobs[-1]))
    except _GARBAGE as exc:
        raise BenchError(f"{path / 'debates_official.tar.xz'}: room {name}: cannot read it ({_why(exc)}); "
                         f"expected the NYU debate room format") from None
    if not jobs:
        raise BenchError(f"no NYU rooms with a live verdict found in {path}" + (" with --paper-only" if paper_only else ""))
    counts = nyu_counts([r for r in jobs if not r.decision["extra"].get("mirrored")])
    counts["skipped"] = dict(skipped)
    counts["questions"] = len(questions)
    if both_orders:
        counts["mirrored"] = sum(1 for r in jobs if r.decision["extra"].get("mirrored"))
    settings, differences = nyu_settings(jobs)
    if both_orders:
        settings["answer_order"] += "; each debate also mirrored, unjudged, with the names swapped"
        differences[4] = differences[4].replace("(paper: both orders)", "(paper: both orders; the mirrors are unjudged)")
    _write(output, base_config("nyu-debate", path, NYU_JUDGE, "human,gpt-4", ["consultancy", "debate"], task,
                               {"paper_only": paper_only, "both_orders": both_orders, "counts": counts},
                               settings, differences),
           list(questions.values()), jobs, {task: dict(skipped)})
    return counts


# -- Khan et al. llm_debate CSV ----------------------------------------------------------------------

def _argument(text: str) -> str:
    m = re.search(r"<argument>(.*?)(</argument>|$)", text or "", re.S)
    return (m.group(1) if m else (text or "")).strip()


def _parse_khan_answer(ans: str, names: dict) -> int | None:
    """The judge column when filled: 'Answer: A'/'B' (or 1/2); None otherwise."""
    m = re.search(r"Answer:\s*<?([AB12])>?", ans or "")
    if not m:
        return None
    return {"A": 1, "B": 2, "1": 1, "2": 2}[m.group(1)]


def import_llm_debate(path: str | Path, output: str | Path, *, agent: str = "gpt-4o-2024-08-06", task: str = "quality",
                      both_orders: bool = False, suite: str | None = None,
                      reported: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write each CSV row's debate (or consultancy) into a new run directory; return counts.

    The TH_first40 file was generated by gpt-4o-2024-08-06 debaters with best-of-4; pass `agent` for
    other files. Rows with no judge verdict are stored with judge 'unjudged' for re-judging.
    `both_orders`: each debate is stored a second time with the answers in the other order
    (`mirrored`), so a judge meets every debate in both orders, as the paper's runs do; the Khan et
    al. file shows every correct answer first. `suite`: the suite name the import is recorded under.
    `reported`: settings the file's authors report that its rows do not show (`KHAN_2024_REPORTED`);
    the rest is `UNKNOWN` in the import's `source_settings` (`llm_debate_settings`).
    """
    path = Path(path)
    if not path.is_file():
        raise BenchError(f"llm-debate path {path} is not a file; expected a CSV with a 'transcript' column (e.g. data0.csv)")
    rows = read_csv_rows(path, "transcript", "the Khan et al. llm_debate CSV format (UTF-8)")
    skipped: Counter = Counter()
    questions, jobs = {}, []
    row_no, row = 0, {}
    try:
        for row_no, row in enumerate(rows, start=1):
            try:
                t = read_json(row["transcript"], f"{path} row {row_no}", "a transcript")
            except (BenchError, TypeError):
                skipped["unreadable transcript"] += 1
                continue
            story = row.get("story") or t.get("story") or ""
            names = t.get("names") or {}
            ans = t.get("answers") or {"correct": row.get("correct answer"), "incorrect": row.get("negative answer")}
            qid = _qid("khan", str(row.get("question_set_id") or t.get("question_set_id") or ""), row.get("question") or t.get("question", ""))
            rtype = str(t.get("rollout_type") or "")
            is_consult = "consult" in rtype
            protocol = "consultancy" if is_consult else "debate"
            correct_first = names.get("correct") == source_debater(1) if names.get("correct") else not t.get("swap")
            answer_order = "correct_first" if correct_first else "correct_second"
            ci = 1 if correct_first else 2
            side_idx = {"correct": ci, "incorrect": 3 - ci}
            if qid not in questions:
                questions[qid] = Question(id=qid, task=task, task_type="extractive", question=row.get("question") or t["question"],
                                          correct=ans["correct"], incorrect=ans["incorrect"], article=story,
                                          meta={"source": "khan2024", "question_set_id": row.get("question_set_id"),
                                                "title": row.get("story_title")})
            turns, assigned = [], set()
            for i, rd in enumerate(t.get("rounds") or [], start=1):
                for side in ("correct", "incorrect"):
                    text = rd.get(side)
                    if not text:
                        continue
                    assigned.add(side)
                    arg = _argument(text)
                    speaker = names.get(side) or source_debater(side_idx[side])
                    turns.append({"round": i, "role": "consultant" if is_consult else "debater",
                                  "speaker": CONSULTANT if is_consult else speaker, "content": text,
                                  "shown": verify_quotes(arg, story), "defends": side_idx[side],
                                  "extra": {"model": agent, "turn_style": "simultaneous" if rtype.endswith("sim") else rtype}})
                for who in ("cross_examiner", "judge"):
                    if rd.get(who):
                        turns.append({"round": i, "role": "judge", "speaker": JUDGE, "content": rd[who],
                                      "shown": rd[who], "defends": None, "extra": {}})
            if not turns:
                skipped["no turns"] += 1
                continue
            assignment = None
            if is_consult:
                assignment = "correct" if assigned == {"correct"} else "incorrect"
            a = _parse_khan_answer(row.get("answer") or "", names)
            judge = "llm-debate:judge" if a is not None else "unjudged"
            decision = {"raw": row.get("answer") or "", "answer": a, "correct": None if a is None else a == ci, "probs": None,
                        "correct_index": ci, "answers": [ans["correct"], ans["incorrect"]] if ci == 1 else [ans["incorrect"], ans["correct"]],
                        "extra": {"source": "khan2024", "row_id": row.get("id"), "room": f"row{row.get('id')}",
                                  "unjudged": a is None, "debaters": [agent, agent], "rollout_type": rtype}}
            job = Job(protocol, questions[qid], answer_order, assignment, variant=f"row{row.get('id')}",
                      debaters=(agent, agent))
            jobs.append(Record(job, judge, agent, turns, decision))
            if both_orders and not is_consult:
                jobs.append(mirrored(jobs[-1]))
    except _GARBAGE as exc:
        raise BenchError(f"{path} row {row_no} (id {row.get('id')!r}): cannot read it ({_why(exc)}); "
                         f"expected a 'transcript' JSON object with rounds of 'correct'/'incorrect' texts") from None
    if not jobs:
        raise BenchError(f"no debates found in {path}; expected rows whose 'transcript' JSON has rounds")
    counts = {"rooms": len(jobs), "questions": len(questions),
              "by_protocol": dict(Counter(r.job.protocol for r in jobs)),
              "judged": sum(1 for r in jobs if r.decision["answer"] is not None),
              "rounds": dict(Counter(max(t["round"] for t in r.turns) for r in jobs)),
              "answer_order": dict(Counter(r.job.answer_order for r in jobs)),
              "skipped": dict(skipped)}
    if both_orders:
        counts["mirrored"] = sum(1 for r in jobs if r.decision["extra"].get("mirrored"))
    extra = {"counts": counts, "both_orders": both_orders, **({"suite": suite} if suite else {})}
    settings, differences = llm_debate_settings(jobs, agent, reported or {}, both_orders)
    _write(output, base_config("llm-debate", path, "unjudged", agent, sorted(counts["by_protocol"]), task, extra,
                               settings, differences),
           list(questions.values()), jobs, {task: dict(skipped)})
    return counts
