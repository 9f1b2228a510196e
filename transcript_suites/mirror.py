"""A debate shown the other way round: the answers in the other order and the debaters' names
swapped with them (`mirrored`), every mention of a name or of an answer by its letter swapped in
every turn (`swap_debater_names`), the article's quotes left as they are."""

from __future__ import annotations

import re

from oversight_bench.api import Job, Record, source_debater


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
