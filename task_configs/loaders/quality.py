"""QuALITY (Pang et al. 2022) as the paper used it, or the closest real subsets that exist.

The paper used Khan et al. 2024's "T_L" split: 400 hard Gutenberg train questions, the correct
option against the validators' best distractor. `khan_tl` rebuilds it from
`QuALITY.v1.0.1.htmlstripped.train` with their filter (see `khan_tl_questions`). Without that
file, `auto` uses the real binary subsets: Khan et al.'s own pipeline output (first 40 of their
T_H set, paper-exact options) and the Michael et al. 2023 NYU debate questions (gold option plus
the other option NYU chose). L-Eval's questions have no distractor votes, so `leval` takes a random
wrong option and says so in `meta["distractor"]`; it is opt-in.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from pathlib import Path

from oversight_bench.api import BenchError
from task_configs.loaders.common import LoadContext, Records, read_rows

TL_FILE = "quality/QuALITY.v1.0.1.htmlstripped.train"
KHAN_TH = "quality/khan2024_TH_first40/data0.csv"
NYU_QUESTIONS = "quality/michael2023_debates/questions.jsonl"
NYU_ARTICLES = "quality/michael2023_debates/articles.jsonl"
LEVAL = "quality/leval/quality.jsonl"
SUBSETS = ("khan_tl", "khan_th", "michael2023", "leval")

# Khan et al.'s exclusions (core/load/quality.py), kept as sha256("<question>|<title>")[:16] so no
# dataset text is committed here.
EXCLUDED_STORIES = {"Boys Do Bleed", "MONICA!", "The Girl in His Mind"}
EXCLUDED_QUESTIONS = {
    "4d21ce50d5cb26fa", "23775490860d95dc", "d38ce1ce7ab625cd", "40a5ebb1532fba15", "dc393a085a44ba44",
    "3b600d459e23c734", "8eed3e88c6ead898", "fa23c9a20d88e6bc", "831049ec69b0b38b",
}
INCOMPATIBLE = ("all of the above", "none of the above", "neither of these")


def _h(text: str, n: int = 12) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def _clean(text: str) -> str:
    return text.replace("\u2028", "").replace("\u2029", "").replace("\xa0", " ")


# -- Khan et al. T_L ----------------------------------------------------------------------------
def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def _best_distractor(q: dict) -> int | None:
    """Most common `untimed_best_distractor` vote that is not the gold label (ties: lowest option)."""
    votes = [int(v["untimed_best_distractor"]) for v in q.get("validation", [])]
    votes = [v for v in votes if v != int(q["gold_label"])]
    if not votes:
        return None
    return max(sorted(set(votes)), key=votes.count)


def khan_tl_questions(question_sets: list[dict], limit: int = 400, max_per_story: int = 5) -> tuple[list[dict], Counter, Counter]:
    """Khan et al. 2024's T_L filter over QuALITY train question sets (one JSON object per set).

    Gutenberg; `difficult == 1`; mean answerability <= 1; every untimed validator correct; at most
    half the speed validators correct; mean context needed >= 1.5; writer label == gold label; their
    excluded stories and questions; at most `max_per_story` per story in file order; shuffled with
    `random.seed(42)`; first `limit`; then questions whose best distractor is the answer or whose
    options say "all/none of the above" are dropped (their `write_questions`).
    Returns (rows, filtered: why questions are not in T_L, skipped: T_L rows that cannot convert).
    """
    kept, filtered, skipped = [], Counter(), Counter()
    per_story: Counter = Counter()
    for qs in question_sets:
        title = _clean(qs.get("title", "")).strip()
        for q in qs.get("questions", []):
            gold = int(q["gold_label"])
            val, speed = q.get("validation", []), q.get("speed_validation", [])
            checks = (
                ("not_gutenberg", qs.get("source") == "Gutenberg"),
                ("not_difficult", q.get("difficult") == 1),
                ("excluded_story", title not in EXCLUDED_STORIES),
                ("excluded_question", _h(f"{_clean(q['question']).strip()}|{title}", 16) not in EXCLUDED_QUESTIONS),
                ("answerability", bool(val) and _mean([v["untimed_eval1_answerability"] for v in val]) <= 1.0),
                ("untimed_accuracy", bool(val) and _mean([int(v["untimed_answer"]) == gold for v in val]) >= 1.0),
                ("speed_accuracy", bool(speed) and _mean([int(v["speed_answer"]) == gold for v in speed]) <= 0.5),
                ("context_required", bool(val) and _mean([int(v["untimed_eval2_context"]) for v in val]) >= 1.5),
                ("conflicting_labels", int(q.get("writer_label", -1)) == gold),
            )
            failed = next((name for name, ok in checks if not ok), None)
            if failed:
                filtered[failed] += 1
                continue
            if per_story[title] >= max_per_story:
                filtered["story_cap"] += 1
                continue
            per_story[title] += 1
            kept.append((qs, q))
    random.Random(42).shuffle(kept)
    filtered["beyond_limit"] += max(0, len(kept) - limit)
    out = []
    for qs, q in kept[:limit]:
        options = [_clean(o) for o in q["options"]]
        gold = int(q["gold_label"])
        bd = _best_distractor(q)
        if bd is None:
            skipped["no_distractor_votes"] += 1
            continue
        correct, wrong = options[gold - 1], options[bd - 1]
        if correct == wrong or any(s in x.lower() for x in (correct, wrong) for s in INCOMPATIBLE):
            skipped["incompatible_options"] += 1
            continue
        out.append({
            "id": f"tl/{qs['set_unique_id']}/{_h(q['question'], 8)}", "question": _clean(q["question"]).strip(),
            "correct": correct, "incorrect": wrong, "article": _clean(qs["article"]),
            "_meta": {"quality_subset": "khan_tl", "title": _clean(qs.get("title", "")), "distractor": "best_distractor"},
        })
    return out, +filtered, skipped


# -- the real subsets in the data directory ---------------------------------------------------
PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": "\x01", "''": "\x02"}


def detokenize(tokens: list[str]) -> str:
    """CoreNLP/PTB tokens back to plain text (approximate; README of michael2023_debates)."""
    text = " ".join(PTB.get(t, t) for t in tokens)
    text = re.sub(r" (n't|'s|'re|'ll|'d|'ve|'m|'S|N'T)(?=\W)", r"\1", text)
    text = re.sub(r" ([.,;:?!%)\]}])", r"\1", text)
    text = re.sub(r"([(\[{$]) ", r"\1", text)
    text = text.replace("\x01 ", '"').replace(" \x02", '"').replace("\x01", '"').replace("\x02", '"')
    text = re.sub(r"[ \t]*\n[ \t]*", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _khan_th(ctx: LoadContext) -> list[dict]:
    rows, _ = read_rows(ctx.file(KHAN_TH), "csv")
    return [{
        "id": f"th/{r['question_set_id']}/{_h(r['question'], 8)}", "question": r["question"], "correct": r["correct answer"],
        "incorrect": r["negative answer"], "article": r["story"],
        "_meta": {"quality_subset": "khan_th", "title": r["story_title"], "distractor": "best_distractor"},
    } for r in rows]


def _michael(ctx: LoadContext) -> list[dict]:
    questions, _ = read_rows(ctx.file(NYU_QUESTIONS), "jsonl")
    articles, _ = read_rows(ctx.file(NYU_ARTICLES), "jsonl")
    texts = {a["article_key"]: a["tokens"] for a in articles}
    plain: dict = {}  # article key -> text: 342 questions share 100 articles, detokenized once each
    out = []
    for q in questions:
        key = (q.get("article_keys") or [None])[0]
        if key not in plain:
            tokens = texts.get(key)
            plain[key] = detokenize(tokens) if tokens else None
        out.append({
            "id": f"nyu/{q['article_id']}/{_h(q['question'], 8)}", "question": q.get("question"),
            "correct": q.get("correct_answer"), "incorrect": q.get("incorrect_answer"),
            "article": plain[key],
            "_meta": {"quality_subset": "michael2023", "title": q.get("title"), "distractor": "nyu_other_option",
                      "included_in_paper": q.get("included_in_paper")},
        })
    return out


_LEVAL_Q = re.compile(r"^(?P<q>.*?)\n\s*\(A\)(?P<a>.*?)\n\s*\(B\)(?P<b>.*?)\n\s*\(C\)(?P<c>.*?)\n\s*\(D\)(?P<d>.*)$", re.S)


def _leval(ctx: LoadContext) -> tuple[list[dict], Counter]:
    stories, _ = read_rows(ctx.file(LEVAL), "jsonl")
    out, skipped = [], Counter()
    for story in stories:
        for inst, gold in zip(story.get("instructions", []), story.get("outputs", [])):
            m = _LEVAL_Q.match(inst.strip())
            g = re.match(r"^\(([ABCD])\)", gold.strip())
            if not m or not g:
                skipped["leval_unparsed"] += 1
                continue
            opts = [m.group(k).strip() for k in "abcd"]
            idx = "ABCD".index(g.group(1))
            out.append({
                "id": f"leval/{_h(inst, 12)}", "question": m.group("q").strip(), "correct": opts[idx],
                "incorrect": [o for i, o in enumerate(opts) if i != idx], "article": story.get("input"),
                "_meta": {"quality_subset": "leval", "distractor": "random (not the paper's best distractor)"},
            })
    return out, skipped


def load(cfg, ctx: LoadContext) -> Records:
    subsets = cfg.options.get("subsets", "auto")
    tl_path = ctx.path(cfg.options.get("tl_file", TL_FILE))
    if subsets == "auto":
        subsets = ["khan_tl"] if tl_path.exists() else ["khan_th", "michael2023"]
    unknown = [s for s in subsets if s not in SUBSETS]
    if unknown:
        raise BenchError(f"task {cfg.name}: options.subsets: unknown {unknown}; expected 'auto' or a list of {', '.join(SUBSETS)}")
    rows, skipped, notes, seen = [], Counter(), [], set()
    facts: dict = {"case": "+".join(subsets)}  # for the task's `substitution` text: which subsets, how many each
    for subset in subsets:
        if subset == "khan_tl":
            if not tl_path.exists():
                raise BenchError(f"task {cfg.name}: subset khan_tl needs {cfg.options.get('tl_file', TL_FILE)}, not found in {ctx.looked_in()}")
            sets, bad = read_rows(Path(tl_path), "jsonl")
            skipped["malformed_row"] += bad
            part, filtered, sk = khan_tl_questions(sets, int(cfg.options.get("tl_limit", 400)))
            notes.append(f"Khan et al. T_L filter kept {len(part)} questions; left out: {dict(filtered)}")
        elif subset == "leval":
            part, sk = _leval(ctx)
            notes.append("L-Eval questions use a random distractor, not the paper's best distractor")
        else:
            part, sk = (_khan_th if subset == "khan_th" else _michael)(ctx), Counter()
        skipped.update(sk)
        facts[subset] = len(part)
        for r in part:
            key = " ".join(str(r.get("question", "")).split()).casefold() + "|" + " ".join(str(r.get("correct", "")).split()).casefold()
            if key in seen:
                skipped["duplicate_across_subsets"] += 1
                continue
            seen.add(key)
            rows.append(r)
    facts["duplicates"] = skipped["duplicate_across_subsets"]
    return Records(rows, +skipped, notes, facts)
