"""Pure text processing of agent and judge outputs (seed Appendix I.1).

Before anyone else sees an agent turn, everything but its `Argument:` section is removed (a turn
without one shows `NO_ARGUMENT`; see `split_thinking`), the argument is cut to the word limit only
when asked (`truncate_words`), and on extractive tasks every `<passage>` is checked against the article.
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
- a look-alike of those marks (`fold_marks`: zero-width or other format characters inside, fullwidth
  or other confusable brackets, Cyrillic/Greek letters for the Latin ones, compatibility forms) is
  first turned into a plain `<passage>`, so it is checked like one and never reaches a reader as a
  mark that looks verified;
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
from typing import Any

# A section header at the start of a line: "Thinking:", "**Argument:**", "## Argument:", "> Thinking:".
_HEADER = re.compile(r"^[ \t>#*_]*(thinking|argument)[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.MULTILINE)
# "Argument:" inside a line counts only capitalised as asked ("Argument:"/"ARGUMENT:"), so prose such as
# "Bob's argument: weak" in the planning stays private.
_INLINE_ARGUMENT = re.compile(r"(?<![\w'])[*_]*(?:Argument|ARGUMENT)[ \t*_]*:[ \t*_]*")
# "Thinking:" anywhere, any case: inside an argument it always starts private text.
_ANY_THINKING = re.compile(r"[*_#]*\bthinking[ \t*_]*:", re.IGNORECASE)
_PASSAGE_TAG = re.compile(r"<\s*(/?)\s*(?:[vu]\s*[_\-\s]\s*)?passage\b([^<>]*)>", re.IGNORECASE)
#: the checker's own marks (`<v_passage>`, `<u_passage>` and look-alikes), which no agent may write
_MARK_TAG = re.compile(r"<\s*/?\s*[vu]\s*[_\-\s]\s*passage\b[^<>]*>", re.IGNORECASE)
#: the marks exactly as the checker writes them
_EXACT_MARK = re.compile(r"</?[vu]_passage>")
#: look-alikes folded before a mark is matched (`fold_marks`), past NFKC (which already folds fullwidth
#: and small forms such as ＜ ﹤ ＿ ／): angle brackets, dashes and slashes, and the Cyrillic/Greek (and
#: a few other) letters that look like those of "v_passage"/"u_passage"
_CONFUSABLE = str.maketrans({
    **dict.fromkeys("‹〈⟨〈❮⧼ᐸ", "<"), **dict.fromkeys("›〉⟩〉❯⧽ᐳ", ">"),
    **dict.fromkeys("‐‑‒–—―−﹘", "-"), **dict.fromkeys("∕⁄⧸", "/"), "‗": "_",
    **dict.fromkeys("ѵνᴠѴⅴⅤ", "v"), **dict.fromkeys("υսᴜ", "u"), **dict.fromkeys("рρРΡ", "p"),
    **dict.fromkeys("аαАΑ", "a"), **dict.fromkeys("ѕЅ", "s"), **dict.fromkeys("ɡ", "g"),
    **dict.fromkeys("еЕΕ", "e"),
})
_ANSWER = re.compile(r"\banswer\b[ \t*_]*[:：]", re.IGNORECASE)
# what follows "Answer:": optional markdown/brackets, a number, optional closing brackets
_CHOICE = re.compile(r"[\s*_\"'`]*[<\[(]?[ \t]*(\d+(?:\.\d+)?)[ \t]*[>\])]?")
_ALTERNATIVE = re.compile(r"[ \t*_]*(?:\||/|\bor\b|\band\b|,|-)[ \t*_<\[(]*\d", re.IGNORECASE)
_LETTER = re.compile(r"[\s*_\"'`]*[<\[(]?[ \t]*([a-z])(?![\w'])[ \t]*[>\])]?\.?", re.IGNORECASE)
_LETTER_ALTERNATIVE = re.compile(r"[ \t*_]*(?:\||/|\bor\b|\band\b|,|-)[ \t*_<\[(]*[a-z](?![\w'])", re.IGNORECASE)

#: What the judge and the opponent see of a turn without a usable argument (see `split_thinking`).
NO_ARGUMENT = "[no argument was given in this turn]"
#: the roles whose turns are arguments (an open role's direct-QA "agent" turn and the judge's are not):
#: what the quality figures, preference pairs, the stance check and the viewer count as arguing
ARGUING_ROLES = ("consultant", "debater")
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_argument(turn: Any) -> bool:
    """Whether a turn (a stored record or a `Turn`) is an argument: its role is an arguing one."""
    role = turn.get("role") if isinstance(turn, dict) else getattr(turn, "role", None)
    return role in ARGUING_ROLES


def replace_surrogates(text: str) -> str:
    """`text` with every lone surrogate (a JSON "\\ud800" escape from a model server: no character,
    and not storable as UTF-8) replaced by U+FFFD, so the reply is kept and judged as the data it is."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


def _argument_start(text: str) -> tuple[int, int] | None:
    """(header start, body start) of the argument: the last line-start `Argument:` header, else the
    last capitalised inline one; None when the output has no argument section."""
    line_start = [m for m in _HEADER.finditer(text) if m.group(1).lower() == "argument"]
    found = line_start or list(_INLINE_ARGUMENT.finditer(text))
    return (found[-1].start(), found[-1].end()) if found else None


def argues_at_line_start(text: str) -> bool:
    """Whether the output has begun its argument under an `Argument:` header at a line start (any
    case, markdown aside): the header an agent is asked to write. An inline capitalised one counts
    for `split_thinking` only in a whole reply; in a reply cut before its header it may be a mention."""
    return any(m.group(1).lower() == "argument" for m in _HEADER.finditer(text)) and bool(split_thinking(text)[1])


def split_thinking(text: str) -> tuple[str, str]:
    """(private, argument) of an agent output; only the argument may reach anyone else.

    The argument is the text after the last `Argument:` header (a line-start one; failing that, the
    last capitalised inline `Argument:`), so a draft or a header quoted in the planning stays private.
    Inside the argument, the first `Thinking:` (line start or inline, any case) ends it: what follows
    is private. Everything else is private too: text before the header, and the whole output when it
    has no `Argument:` section at all (a model that skips the format may be thinking aloud, and the
    judge must never read private planning). The argument is then empty, and `process_turn` shows
    `NO_ARGUMENT` in its place.
    """
    found = _argument_start(text)
    if found is None:
        return _HEADER.sub("", text, count=1).strip(), ""
    start, body = found
    argument = text[body:]
    thinking_inside = _ANY_THINKING.search(argument)
    private = [_HEADER.sub("", text[:start], count=1)]
    if thinking_inside:
        private.append(argument[thinking_inside.end():])
        argument = argument[:thinking_inside.start()]
    return "\n".join(p.strip() for p in private if p.strip()), argument.strip()


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


def _fold_char(c: str) -> str:
    """One non-ASCII character as mark matching reads it: nothing for a format character (Unicode
    category Cf: zero-width space, soft hyphen, word joiner, BOM, bidi controls), else its NFKC form
    with look-alikes mapped (`_CONFUSABLE`)."""
    if unicodedata.category(c) == "Cf":
        return ""
    return unicodedata.normalize("NFKC", c.translate(_CONFUSABLE)).translate(_CONFUSABLE)


_FOLD_CACHE: dict[str, str] = {}


def fold_marks(text: str, strip: bool = False) -> str:
    """`text` with every look-alike of the checker's marks turned into a plain `<passage>`
    (`</passage>`, `<passage/>`), the one rule for both live turns and imports: any `<v_passage>`
    or `<u_passage>` form other than the exact ASCII `<v_passage>`, `</v_passage>`, `<u_passage>`,
    `</u_passage>` (those are kept as written, where they are, for their caller to re-check). The
    text is folded character by character (format characters dropped, NFKC, `_CONFUSABLE`) with each
    folded character's origin kept, the marks are found in the folded text, and only their spans are
    replaced in the original: linear in the text, everything else unchanged. `strip`: the look-alikes
    are removed instead (where no article can check a quote, see `strip_passage_tags`)."""
    if text.isascii():
        if "passage" not in text.lower():
            return text
        folded, origin = text, None
    else:
        pieces = []
        for c in text:
            if c < "\x80":
                pieces.append(c)
                continue
            f = _FOLD_CACHE.get(c)
            if f is None:
                f = _fold_char(c)
                if len(_FOLD_CACHE) < 65536:
                    _FOLD_CACHE[c] = f
            pieces.append(f)
        folded = "".join(pieces)
        if "passage" not in folded.lower():
            return text
        origin = [i for i, f in enumerate(pieces) for _ in f]
    out, pos = [], 0
    for m in _MARK_TAG.finditer(folded):
        a = m.start() if origin is None else origin[m.start()]
        b = m.end() if origin is None else origin[m.end() - 1] + 1
        written = text[a:b]
        if _EXACT_MARK.fullmatch(written):
            continue
        out.append(text[pos:a])
        g = m.group(0)
        out.append("" if strip else "<passage/>" if g[1:-1].rstrip().endswith("/") else
                   "</passage>" if g[1:].lstrip().startswith("/") else "<passage>")
        pos = b
    if not pos:
        return text
    out.append(text[pos:])
    return "".join(out)


def strip_passage_tags(text: str) -> str:
    """Text without the checker's marks (`<v_passage>`, `<u_passage>`, any form; their words kept):
    where no article can verify a quote, an agent-written mark must not reach the judge looking
    verified. Plain `<passage>` tags claim nothing and stay; look-alikes of the marks go too."""
    return _MARK_TAG.sub("", fold_marks(text, strip=True))


#: a checker's mark as it writes it (`verify_passages`, the importers): group 1 "v" or "u", group 2 the quote
_MARKED = re.compile(r"<([vu])_passage>(.*?)</\1_passage>", re.DOTALL)


def verified_passages(text: str) -> list[str]:
    """The quotes of a checked turn (`process_turn`'s output) that the checker verified, in order:
    the text inside each `<v_passage>...</v_passage>`, stripped; an empty one is left out."""
    return [q.strip() for mark, q in _MARKED.findall(text) if mark == "v" and q.strip()]


def untag_passages(text: str) -> str:
    """A checked turn with its quotes shown as the agent wrote them: each `<v_passage>` and
    `<u_passage>` becomes a plain `<passage>`, so the reader learns nothing of the check."""
    return _MARKED.sub(lambda m: f"<passage>{m.group(2)}</passage>", text)


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


def turn_notes(text: str, word_limit: int, truncate: bool = False) -> dict[str, object]:
    """What went wrong with an agent output's format, for the turn record (empty when nothing):
    `empty_output`, `no_argument_section` (others see `NO_ARGUMENT`), `thinking_in_argument` (the
    part from `Thinking:` on was withheld), `empty_argument` (nothing left to show: `NO_ARGUMENT`),
    `over_word_limit` (words in an argument longer than asked) or, with `truncate`,
    `truncated_from_words` (the same count, and the argument was cut)."""
    notes: dict[str, object] = {}
    argument = split_thinking(text)[1]
    found = _argument_start(text)
    if not text.strip():
        notes["empty_output"] = True
    elif found is None:
        notes["no_argument_section"] = True
    else:
        if _ANY_THINKING.search(text[found[1]:]):
            notes["thinking_in_argument"] = True
        if not argument:
            notes["empty_argument"] = True
    words = word_count(argument)
    if words > word_limit:
        notes["truncated_from_words" if truncate else "over_word_limit"] = words
    return notes


def process_turn(text: str, article: str | None, word_limit: int | None = None) -> str:
    """What the judge and the opponent see of an agent turn: the argument only (`split_thinking`;
    `NO_ARGUMENT` when there is none), cut to `word_limit` words when one is given (the paper only
    asks for the limit, so callers pass one only when the `truncate_words` option is on), passages
    verified when there is an article (on other tasks no agent-written mark survives)."""
    argument = split_thinking(text)[1]
    if not argument:
        return NO_ARGUMENT
    if word_limit is not None:
        argument = limit_words(argument, word_limit)
    if article is None:
        return strip_passage_tags(argument)
    return verify_passages(fold_marks(argument), article)  # look-alike marks: plain <passage>, checked as such


def parse_letter(text: str, n: int) -> int | None:
    """The option chosen in `Answer: x` with x one of the first n letters (a, b, c, ...), as 1..n;
    None when invalid. The rules are `parse_choice`'s with letters for numbers: the last "Answer:"
    decides; upper case, brackets and markdown are accepted; a letter beyond the n-th, several letters
    ("Answer: a or b") or no "Answer:" are invalid."""
    last: str | None = None
    for m in _ANSWER.finditer(text):
        rest = text[m.end():]
        choice = _LETTER.match(rest)
        if choice:
            last = "ambiguous" if _LETTER_ALTERNATIVE.match(rest[choice.end():]) else choice.group(1).lower()
    if last is None or len(last) != 1:
        return None
    index = ord(last) - ord("a") + 1
    return index if 1 <= index <= n else None
