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
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
import lzma
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

from oversight_bench import __version__
from oversight_bench.api import (CONSULTANT, JUDGE, BenchError, ImportPlan, Job, Question, Record, execute, is_argument,
                                 provenance, run_options_model, source_debater)
from transcript_suites.untrusted import finite_belief, read_csv_rows, read_file, read_json, read_member, reverify, sub_pairs

NYU_JUDGE = "human:nyu-2023"
_NO_SPACE_BEFORE = {"n't", "'s", "'re", "'ll", "'d", "'ve", "'m", ".", ",", ";", ":", "?", "!", ")", "]", "''", "%"}
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}


def detokenize(tokens: list[str]) -> str:
    """Approximate plain text from the NYU CoreNLP token lists (see the datasets README)."""
    out: list[str] = []
    prev = None
    for tok in tokens:
        if tok == "\n":
            out.append("\n")
            prev = "\n"
            continue
        text = _PTB.get(tok, tok)
        if out and prev not in ("\n", "``", "-LRB-", "-LSB-", "-LCB-") and tok not in _NO_SPACE_BEFORE and tok not in ("-RRB-", "-RSB-", "-RCB-"):
            out.append(" ")
        out.append(text)
        prev = tok
    return "".join(out)


def _qid(prefix: str, *parts: str) -> str:
    return f"{prefix}-{parts[0]}-{hashlib.sha1('|'.join(parts).encode()).hexdigest()[:10]}"


UNKNOWN = "unknown"


def _base_config(kind: str, source: Path, judge: str, agent: str, protocols: list[str], task: str, extra: dict,
                 settings: dict[str, Any], differences: list[str]) -> dict:
    """An import's config. None of our options made these transcripts, so `options` holds none (a
    re-judge takes its judge's options from its own defaults and overrides); `import.source_settings`
    says how the source made them, as the source reports it or as its files show (`UNKNOWN` where
    neither says), and `import.differences` what differs from the paper's setting, which the import
    declares as its deviations (`ImportPlan.deviations`)."""
    run_options_model(protocols)  # the protocols are installed
    return {
        "judge": judge, "agent": agent, "tasks": [task], "task_types": ["extractive"], "protocols": protocols, "seed": None,
        "options": {},
        **provenance(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "import": {"kind": kind, "source": str(source), "oversight_bench": __version__, **extra,
                   "source_settings": settings, "differences": differences},
    }


def _spread(values: list[int]) -> str:
    """A count's range and median, in words ("1–7, median 3")."""
    v = sorted(values)
    return f"{v[0]}" if v[0] == v[-1] else f"{v[0]}–{v[-1]}, median {v[len(v) // 2]}"


def nyu_settings(records: list[Record]) -> tuple[dict[str, Any], list[str]]:
    """How Michael et al. 2023 made the imported rooms, read off the rooms themselves (their paper:
    the live judge chose when to end a debate and could ask questions between rounds), and the
    differences from the paper's setting that follow."""
    debates = [r for r in records if r.job.protocol == "debate" and not r.decision["extra"].get("mirrored")]
    rounds = [max((t["round"] for t in r.turns if t["role"] != "judge"), default=0) for r in records
              if not r.decision["extra"].get("mirrored")]
    styles = Counter(t["extra"].get("turn_style") for r in debates for t in r.turns if t["role"] == "debater")
    asked = sum(1 for r in debates if any(t["role"] == "judge" for t in r.turns))
    second = sum(1 for r in debates if r.job.answer_order == "correct_second")
    by_agent = Counter(r.agent for r in records if not r.decision["extra"].get("mirrored"))
    settings = {
        "rounds": f"as each live judge chose: {_spread(rounds)}",
        "turn_style": ", ".join(f"{k} ({v} speeches)" for k, v in sorted(styles.items())),
        "debaters": ", ".join(f"{k} ({v} rooms)" for k, v in sorted(by_agent.items())),
        "judge": f"a live human judge who could ask questions between rounds (in {asked} of {len(debates)} debates "
                 "it did) and ended the debate; its verdict is its final belief",
        "answer_order": f"one order per room, as the source shows it (the correct answer second in {second} of "
                        f"{len(debates)} debates)",
        "best_of_n": UNKNOWN, "word_limit": UNKNOWN, "thinking_max_tokens": UNKNOWN, "argument_max_tokens": UNKNOWN,
        "quotes": "spans of the story picked in the debate interface (verified by construction)",
    }
    differences = [
        "source transcripts (Michael et al. 2023): debaters are people and GPT-4, not the paper's agents",
        "source transcripts (Michael et al. 2023): interactive debate; the live human judge asked questions between "
        f"rounds ({asked} of {len(debates)} debates) and ended it when it chose (paper: a judge that reads the finished "
        "transcript and asks nothing)",
        f"source transcripts (Michael et al. 2023): rounds {settings['rounds']} (paper: 3)",
        f"source transcripts (Michael et al. 2023): turn style {settings['turn_style']} (paper: simultaneous)",
        f"source transcripts (Michael et al. 2023): {settings['answer_order']} (paper: both orders)",
        "source transcripts (Michael et al. 2023): best-of-N, word limit and token budgets unknown",
    ]
    return settings, differences


def _write(output: str | Path, config: dict, questions: list[Question], records: list[Record],
           skipped: dict[str, dict[str, int]]) -> None:
    """The import's records into a new run directory, through the one pipeline; every turn's shown
    text re-verified against the article the import carries first (`reverify`)."""
    norm = {q.id: _squash(q.article or "") for q in questions}
    for r in records:
        for t in r.turns:
            t["shown"] = reverify(t.get("shown"), norm.get(r.job.question.id, ""), _spans_article)
    execute(ImportPlan(str(output), config, questions, records, skipped), progress=False)


# -- NYU 2023 --------------------------------------------------------------------------------------

def _nyu_render(content: list[dict], tokens: list[str]) -> tuple[str, str]:
    """(content with <quote>, shown with <v_passage>) from a speech's Text/Quote segments."""
    raw, shown = [], []
    for seg in content:
        if "Text" in seg:
            t = seg["Text"].get("text", "")
            raw.append(t)
            shown.append(t)
        elif "Quote" in seg:
            a, b = seg["Quote"]["span"]
            q = detokenize(tokens[a:b]).strip()
            if raw and raw[-1].endswith("</quote>"):
                raw.append(" ")  # the debate UI shows back-to-back quotes as separate spans
                shown.append(" ")
            raw.append(f"<quote>{q}</quote>")
            shown.append(f"<v_passage>{q}</v_passage>")
    return "".join(raw), "".join(shown)


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
                    text, shown = _nyu_render((jf.get("feedback") or {}).get("content") or [], tokens)
                    if text.strip():
                        turns.append({"round": rnd, "role": "judge", "speaker": JUDGE, "content": text, "shown": shown,
                                      "defends": None, "extra": {"belief": jf.get("distribution"), "human": True}})
                elif "SimultaneousSpeeches" in r or "SequentialSpeeches" in r:
                    rnd += 1
                    kind = "simultaneous" if "SimultaneousSpeeches" in r else "sequential"
                    speeches = next(iter(r.values()))["speeches"]
                    for key in sorted(speeches, key=int):
                        sp = speeches[key]
                        text, shown = _nyu_render(sp.get("content") or [], tokens)
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
    _write(output, _base_config("nyu-debate", path, NYU_JUDGE, "human,gpt-4", ["consultancy", "debate"], task,
                                {"paper_only": paper_only, "both_orders": both_orders, "counts": counts},
                                settings, differences),
           list(questions.values()), jobs, {task: dict(skipped)})
    return counts


def nyu_counts(records: list[Record]) -> dict[str, Any]:
    """Rooms, protocols, human/AI debaters and judges, and judge accuracy, of imported jobs."""
    c: dict[str, Any] = {"rooms": len(records)}
    c["by_protocol"] = dict(Counter(r.job.protocol for r in records))
    c["by_protocol_agent"] = dict(Counter(f"{r.job.protocol}/{r.agent}" for r in records))
    c["human_judges"] = len({r.decision["extra"]["judge_id"] for r in records})
    c["human_debaters"] = len({v for r in records for v in r.decision["extra"]["debaters"].values() if v != "GPT-4"})
    acc: dict[str, list] = {}
    for r in records:
        if r.decision["correct"] is not None:
            acc.setdefault(f"{r.job.protocol}/{r.agent}", []).append(r.decision["correct"])
    c["judge_accuracy_by_room"] = {k: sum(v) / len(v) for k, v in sorted(acc.items())}
    return c


# -- Khan et al. llm_debate CSV ----------------------------------------------------------------------

_QUOTE = re.compile(r"<(/?)(?:v_|u_)?quote>")  # paired by `sub_pairs`: <quote>...</quote>, either mark
_STRIP = " \t\n\"'“”‘’."


def _norm(text: str) -> str:
    """Whitespace collapsed and curly quotes straightened: the story's hard line breaks and
    typography should not make a faithful quote unverified."""
    text = text.translate(str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"}))
    return re.sub(r"\s+", " ", text).strip()


def _core(q: str) -> str:
    return _norm(q).strip(_STRIP).strip(".… ").strip(_STRIP)


def _quoted(q: str, norm_article: str) -> bool:
    """The import's rule: a quote is in the (normalised) article, up to an ellipsis at either end."""
    core = _core(q)
    return bool(core) and core in norm_article


def _squash(text: str) -> str:
    """Words and punctuation marks as tokens, one space between: "ship ?" and "ship?" agree, "the
    rapist" and "therapist" do not (a word boundary is never whitespace aside)."""
    return " ".join(re.sub(r"([^\w\s])", r" \1 ", _norm(text)).split())


def _spans_article(q: str, squashed_article: str) -> bool:
    """Whether a marked quote is a span of whole tokens of the article the import carries (as written,
    or its core as `_quoted` takes it), whitespace between tokens aside: the rule every imported
    `<v_passage>` is held to at the end (`_write`). NYU quotes are spans of their room's own copy of
    the story, which can be tokenised differently ("ship ?") from the copy the question keeps."""
    article = f" {squashed_article} "
    return any(core and f" {core} " in article for core in (_squash(q), _squash(_core(q))))


def verify_quotes(text: str, article: str) -> str:
    """Rewrite each <quote> as <v_passage> if it is in the article (exact up to whitespace and quote
    marks; a trailing/leading ellipsis is allowed), else <u_passage>.

    Deliberately not `processing.verify_passages` (the live runs' exact rule): these quotes were
    checked by another system against its own copy of the story, and the copy we hold differs in
    layout only (hard line breaks, typographic quotes). tests/test_passage_rules.py pins where the
    two rules agree (made-up, changed, empty and forged quotes) and where they differ (layout)."""
    norm_article = _norm(article)

    def sub(_open: re.Match, q: str, _close: re.Match) -> str:
        tag = "v_passage" if _quoted(q, norm_article) else "u_passage"
        return f"<{tag}>{q}</{tag}>"

    return sub_pairs(text, _QUOTE, sub)  # linear: a lazy regex is quadratic in unclosed tags


def _argument(text: str) -> str:
    m = re.search(r"<argument>(.*?)(</argument>|$)", text or "", re.S)
    return (m.group(1) if m else (text or "")).strip()


def _parse_khan_answer(ans: str, names: dict) -> int | None:
    """The judge column when filled: 'Answer: A'/'B' (or 1/2); None otherwise."""
    m = re.search(r"Answer:\s*<?([AB12])>?", ans or "")
    if not m:
        return None
    return {"A": 1, "B": 2, "1": 1, "2": 2}[m.group(1)]


#: "Debater A" in any case, with any space, hyphen or underscore before the letter ("debater-b's", "DEBATER A:")
_DEBATER = re.compile(r"\b(debater)([\s_-]*)([AB]|[ab](?![^\W\d_]))(?![^\W\d_])", re.I)
#: an answer named by the letter of the debater defending it, as the source's interface labelled them:
#: "option B", "answer (a)", "(A)", and a bare capital "B" or a bare "A" that is not the article
#: ("A is", "A." but not "A man")
_LABEL = re.compile(r"\b((?:answers?|options?|choices?)\s+\(?)([AB])(?![^\W\d_])|\(([ABab])\)"
                    r"|(?<![\w'’-])(?-i:(B|A(?=\s+(?:is|was|seems|has|says|does|and|or|are|would|could|should|makes)\b"
                    r"|[^\w\s'’]|\s*$)))(?![\w'’]|-\w)", re.I)
#: the article's own words, which no swap may change: quotes as the source and the checker mark them
_QUOTED_TAG = re.compile(r"<(/?)(v_passage|u_passage|quote|v_quote|u_quote)>")


def _other(letter: str) -> str:
    return {"A": "B", "B": "A", "a": "b", "b": "a"}[letter]


def swap_debater_names(text: str) -> str:
    """`text` with Debater A and Debater B trading names, and the answers they defend trading letters:
    every "Debater A" (any case, "Debater A's", "debater-a") becomes "Debater B" and back, and an
    answer named by its letter ("option B", "(A)", "I believe B") the other letter. The mirror of a
    room needs both: its debaters trade answer positions, and in the sources a debater's name and its
    answer's letter go together (Michael et al.'s interface labels the answers A and B). Quotes of the
    article (`<v_passage>`, `<u_passage>`, `<quote>`) are left as they are."""
    if not text:
        return text
    out, pos = [], 0
    for start, end in _quoted_spans(text):
        out += [_swap_outside(text[pos:start]), text[start:end]]
        pos = end
    out.append(_swap_outside(text[pos:]))
    return "".join(out)


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each quote `<(tag)>.*?</\\1>` finds, left to right, in linear time: the tags are found
    once and each opening is paired with the first closing of its name after it (the lazy
    backreference regex rescans to the end for every unclosed opening: 30,000 took minutes)."""
    tags = list(_QUOTED_TAG.finditer(text))
    next_close: list[int | None] = [None] * len(tags)
    later: dict[str, int] = {}
    for i in range(len(tags) - 1, -1, -1):
        next_close[i] = later.get(tags[i].group(2))
        if tags[i].group(1):
            later[tags[i].group(2)] = i
    spans, i = [], 0
    while i < len(tags):
        j = next_close[i]
        if tags[i].group(1) or j is None:
            i += 1
            continue
        spans.append((tags[i].start(), tags[j].end()))
        i = j + 1
    return spans


def _swap_outside(text: str) -> str:
    text = _DEBATER.sub(lambda m: m.group(1) + m.group(2) + _other(m.group(3)), text)

    def label(m: re.Match) -> str:
        if m.group(2):
            return m.group(1) + _other(m.group(2))
        if m.group(3):
            return f"({_other(m.group(3))})"
        return _other(m.group(4))

    # the debater names already swapped must not be swapped back: labels are looked for outside them
    parts = re.split(r"(\bdebater[\s_-]*[AB]\b)", text, flags=re.I)
    return "".join(p if i % 2 else _LABEL.sub(label, p) for i, p in enumerate(parts))


def _swap_speaker(name: str) -> str:
    return {source_debater(1): source_debater(2), source_debater(2): source_debater(1)}.get(name, name)


def mirrored(record: Record) -> Record:
    """The same debate shown with the answers in the other order and the debaters' names swapped with
    them: the debater who argued for answer 1 as "Debater A" now argues for answer 2 as "Debater B",
    and every mention of either name (and of an answer by its letter) in every turn, the judge's
    included, is swapped (`swap_debater_names`). So a judge that prefers the name "Debater A" is right
    in exactly half of a suite's rooms, as one that prefers answer 1 is: the sources give the correct
    answer to one name (Khan et al.: "Debater A" in all 40). Within a simultaneous round the debater
    of answer 1 speaks first, as in the original; sequential turns keep their order (the second
    speaker saw the first). A verdict of the original's judge belongs to the original order only, so
    the mirror is unjudged (its live judge's beliefs are swapped with the answers)."""
    job = record.job

    def swap(t: dict) -> dict:
        extra = dict(t.get("extra") or {})
        if isinstance(extra.get("belief"), list) and len(extra["belief"]) == 2:
            extra["belief"] = extra["belief"][::-1]
        return {**t, "defends": None if t["defends"] is None else 3 - t["defends"], "speaker": _swap_speaker(t["speaker"]),
                "content": swap_debater_names(t["content"]), "shown": swap_debater_names(t["shown"]), "extra": extra}

    order = "correct_second" if job.answer_order == "correct_first" else "correct_first"
    turns = [swap(t) for t in record.turns]
    simultaneous = lambda t: (t.get("extra") or {}).get("turn_style") != "sequential"  # noqa: E731
    turns.sort(key=lambda t: (t["round"], t["role"] == "judge", (t["defends"] or 0) if simultaneous(t) else 0))  # stable
    ci = 3 - record.decision["correct_index"]
    d = record.decision
    extra = {**d["extra"], "unjudged": True, "mirrored": True, "names_swapped": True,
             "room": f"{d['extra'].get('room', job.variant)} (answers and names swapped)"}
    if isinstance(extra.get("debaters"), dict):
        extra["debaters"] = {_swap_speaker(k): v for k, v in extra["debaters"].items()}
    decision = {"raw": "", "answer": None, "correct": None, "probs": None, "correct_index": ci,
                "answers": list(reversed(d["answers"])), "extra": extra}
    return Record(Job(job.protocol, job.question, order, job.assignment, variant=job.variant, agent=job.agent,
                      debaters=job.debaters), "unjudged", record.agent, turns, decision)


def llm_debate_settings(records: list[Record], agent: str, reported: dict[str, Any], both_orders: bool
                        ) -> tuple[dict[str, Any], list[str]]:
    """How an llm_debate CSV's debates were made: what its rows show (rounds, turn style from the
    rollout type, the answer order), what its authors report (`reported`, e.g. Khan et al.'s
    best-of-4), `UNKNOWN` for the rest; and the differences from the paper's setting."""
    own = [r for r in records if not r.decision["extra"].get("mirrored")]
    rounds = [max(t["round"] for t in r.turns) for r in own]
    styles = Counter(t["extra"].get("turn_style") for r in own for t in r.turns if is_argument(t))
    first = sum(1 for r in own if r.job.answer_order == "correct_first")
    settings = {"debaters": agent, "rounds": _spread(rounds), "turn_style": ", ".join(sorted(k for k in styles if k)),
                "answer_order": f"correct answer first in {first} of {len(own)} debates as published"
                                + ("; each debate also mirrored, unjudged, with the names swapped" if both_orders else ""),
                "best_of_n": UNKNOWN, "word_limit": UNKNOWN, "thinking_max_tokens": UNKNOWN,
                "argument_max_tokens": UNKNOWN, "judge": "none recorded" if not any(r.decision["answer"] for r in own)
                else "the CSV's judge column", **reported}
    who = reported.get("source", "the imported CSV")
    differences = [f"source transcripts ({who}): debaters {agent}, with their authors' prompts (not the paper's App. H)"]
    if settings["rounds"] != "3":
        differences.append(f"source transcripts ({who}): rounds {settings['rounds']} (paper: 3)")
    if settings["turn_style"] != "simultaneous":
        differences.append(f"source transcripts ({who}): turn style {settings['turn_style'] or UNKNOWN} (paper: simultaneous)")
    if settings["best_of_n"] != 4:
        differences.append(f"source transcripts ({who}): best-of-N {settings['best_of_n']} (paper: 4)")
    unknown = [k for k in ("word_limit", "thinking_max_tokens", "argument_max_tokens") if settings[k] == UNKNOWN]
    if unknown:
        differences.append(f"source transcripts ({who}): {', '.join(unknown)} unknown")
    return settings, differences


#: what Khan et al. 2024 report of the debates in their T_H file (the `khan-2024` suite's source)
KHAN_2024_REPORTED = {"source": "Khan et al. 2024", "best_of_n": 4}


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
    _write(output, _base_config("llm-debate", path, "unjudged", agent, sorted(counts["by_protocol"]), task, extra,
                                settings, differences),
           list(questions.values()), jobs, {task: dict(skipped)})
    return counts
