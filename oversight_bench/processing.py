"""Pure text processing of agent and judge outputs (seed Appendix I.1).

Before anyone else sees an agent turn, its private `Thinking:` section is removed, the argument is
cut to the word limit and, on extractive tasks, every `<passage>` is checked against the article.
The judge's reply is parsed strictly: an answer that is not clearly 1 or 2 is invalid, never guessed.

Passage verification rules (the judge relies on them, so they are deliberately strict):
- exact substring match of the passage in the article, after stripping the passage's own leading and
  trailing whitespace; inner whitespace, case and punctuation must match exactly;
- both sides are NFC-normalised first, so composed and decomposed forms of the same character
  (e.g. "é" vs "e" + combining accent) match — they are the same text, not a paraphrase;
- tags are matched case-insensitively, tolerate spaces inside the brackets (`< passage >`) and
  carry any attributes (`<passage x="y">`, `<v_passage id=1>`), which are dropped;
- `<v_passage>`/`<u_passage>` (also `v-passage`, `v passage`) written by the agent itself are
  re-checked like `<passage>`, so an agent cannot forge a verified quote; on a task without an
  article they are removed (text kept), since nothing can be verified;
- a self-closing `<passage/>` is dropped;
- nested passage tags are flattened: the outermost span, with inner tags removed, is checked as one;
- a `<passage>` never closed runs to the end of the text and is unverified; a stray closing tag is
  dropped;
- an empty passage is unverified (an empty string would trivially "match");
- text in quotation marks without tags is left as plain text; the judge is told it counts as
  unverified.
"""

from __future__ import annotations

import re
import unicodedata

_HEADER = re.compile(r"^[ \t>#*_]*(thinking|argument)[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.MULTILINE)
_INLINE_ARGUMENT = re.compile(r"argument[ \t*_]*:[ \t*_]*", re.IGNORECASE)
_PASSAGE_TAG = re.compile(r"<\s*(/?)\s*(?:[vu]\s*[_\-\s]\s*)?passage\b([^<>]*)>", re.IGNORECASE)
#: the checker's own marks (`<v_passage>`, `<u_passage>` and look-alikes), which no agent may write
_MARK_TAG = re.compile(r"<\s*/?\s*[vu]\s*[_\-\s]\s*passage\b[^<>]*>", re.IGNORECASE)
_ANSWER = re.compile(r"\banswer\b[ \t*_]*[:：]", re.IGNORECASE)
# what follows "Answer:": optional markdown/brackets, a number, optional closing brackets
_CHOICE = re.compile(r"[\s*_\"'`]*[<\[(]?[ \t]*(\d+(?:\.\d+)?)[ \t]*[>\])]?")
_ALTERNATIVE = re.compile(r"[ \t*_]*(?:\||/|\bor\b|\band\b|,|-)[ \t*_<\[(]*\d", re.IGNORECASE)


def split_thinking(text: str) -> tuple[str, str]:
    """(thinking, argument) of an agent output.

    The argument starts after the last line-start `Argument:` header (or, failing that, the last
    inline one), so planning notes that mention "argument:" earlier stay private. A `Thinking:`
    header after the argument ends it. Without any `Argument:` header, a `Thinking:` section runs to
    the end (nothing private leaks) and only text before it is the argument; text with no headers at
    all is entirely argument.
    """
    headers = list(_HEADER.finditer(text))
    arg_headers = [m for m in headers if m.group(1).lower() == "argument"]
    if arg_headers:
        start, body = arg_headers[-1].start(), arg_headers[-1].end()
    else:
        inline = list(_INLINE_ARGUMENT.finditer(text))
        start, body = (inline[-1].start(), inline[-1].end()) if inline else (None, None)
    if start is None:
        think = next((m for m in headers if m.group(1).lower() == "thinking"), None)
        if think is None:
            return "", text.strip()
        return text[think.end():].strip(), text[:think.start()].strip()
    later_thinking = next((m for m in headers if m.group(1).lower() == "thinking" and m.start() >= body), None)
    end = later_thinking.start() if later_thinking else len(text)
    thinking = _HEADER.sub("", text[:start], count=1) if text[:start].strip() else ""
    if later_thinking:
        thinking = (thinking + "\n" + text[later_thinking.end():]).strip()
    return thinking.strip(), text[body:end].strip()


def word_count(text: str) -> int:
    return len(text.split())


def limit_words(text: str, n: int) -> str:
    """The first n whitespace-separated words of `text`, original spacing kept.

    A passage tag left open by the cut is closed, so the kept prefix of a genuine passage (itself a
    substring of the article) still verifies and no tag swallows what follows.
    """
    words = list(re.finditer(r"\S+", text))
    if len(words) <= n:
        return text
    cut = text[: words[n - 1].end()] if n > 0 else ""
    depth = 0
    for m in _PASSAGE_TAG.finditer(cut):
        if not _self_closing(m):
            depth = max(0, depth - 1) if m.group(1) else depth + 1
    return cut + "</passage>" if depth else cut


def _self_closing(tag: re.Match) -> bool:
    return tag.group(2).rstrip().endswith("/")


def strip_passage_tags(text: str) -> str:
    """Text without the checker's marks (`<v_passage>`, `<u_passage>`, any form; their words kept):
    where no article can verify a quote, an agent-written mark must not reach the judge looking
    verified. Plain `<passage>` tags claim nothing and stay."""
    return _MARK_TAG.sub("", text)


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _tagged(passage: str, article_nfc: str, closed: bool = True) -> str:
    quote = passage.strip()
    verified = closed and bool(quote) and _nfc(quote) in article_nfc
    tag = "v_passage" if verified else "u_passage"
    return f"<{tag}>{quote}</{tag}>"


def verify_passages(text: str, article: str) -> str:
    """Rewrite each passage to `<v_passage>` (exact substring of the article) or `<u_passage>`.

    See the module docstring for the exact rules.
    """
    article_nfc = _nfc(article)
    out: list[str] = []
    span: list[str] = []
    depth, pos = 0, 0
    for m in _PASSAGE_TAG.finditer(text):
        (span if depth else out).append(text[pos:m.start()])
        pos = m.end()
        if _self_closing(m):
            continue
        closing = bool(m.group(1))
        if not closing:
            depth += 1
        elif depth == 1:
            out.append(_tagged("".join(span), article_nfc))
            span, depth = [], 0
        elif depth > 1:
            depth -= 1
    (span if depth else out).append(text[pos:])
    if depth:
        out.append(_tagged("".join(span), article_nfc, closed=False))
    return "".join(out)


def parse_choice(text: str, n: int) -> int | None:
    """The option 1..n chosen in `Answer: <k>`-style output, else None (invalid).

    Accepted: "Answer: 1", "Answer:2", "Answer: <2>", "[1]", "(1)", markdown bold around either part,
    a trailing explanation ("Answer: 2 because ..."). Only occurrences of "Answer:" followed by a
    number count, and the last of them decides (a chain of thought may quote the format or change its
    mind). Invalid: a number outside 1..n ("Answer: 3" for two options, "Answer: 1.5"), several
    options ("Answer: 1 or 2", "Answer: <1|2>"), or no "Answer:" at all ("The answer is 1").
    """
    last: str | None = None
    for m in _ANSWER.finditer(text):
        rest = text[m.end():]
        choice = _CHOICE.match(rest)
        if choice:
            last = "ambiguous" if _ALTERNATIVE.match(rest[choice.end():]) else choice.group(1)
    return int(last) if last is not None and last.isdigit() and 1 <= int(last) <= n else None


def parse_answer(text: str) -> int | None:
    """The judge's answer, 1 or 2, from `Answer: <1|2>`; None when invalid (see `parse_choice`)."""
    return parse_choice(text, 2)


def turn_notes(text: str, word_limit: int) -> dict[str, object]:
    """What went wrong with an agent output's format, for the turn record (empty when nothing)."""
    notes: dict[str, object] = {}
    if not text.strip():
        notes["empty_output"] = True
    elif not _HEADER.search(text) and not _INLINE_ARGUMENT.search(text):
        notes["no_headers"] = True
    elif not any(m.group(1).lower() == "argument" for m in _HEADER.finditer(text)) and not _INLINE_ARGUMENT.search(text):
        notes["no_argument_section"] = True
    words = word_count(split_thinking(text)[1])
    if words > word_limit:
        notes["truncated_from_words"] = words
    return notes


def process_turn(text: str, article: str | None, word_limit: int, *, truncate: bool = True) -> str:
    """What the judge and the opponent see of an agent turn: thinking stripped, argument cut to
    `word_limit` words when `truncate` (the option `truncate_words`; the paper asks for the limit in
    the prompt and does not cut), passages verified when there is an article."""
    argument = split_thinking(text)[1]
    if truncate:
        argument = limit_words(argument, word_limit)
    return verify_passages(argument, article) if article is not None else strip_passage_tags(argument)
