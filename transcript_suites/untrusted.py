"""Reading a peer's transcripts as untrusted input, for both importers: one bounded reader for their
JSON and CSV (`read_json`, `read_csv_rows`, `read_member`), quote tags paired in linear time
(`pair_tags`), every imported `shown` text re-verified against the article the import carries
(`reverify`), and a belief refused unless it is two finite probabilities (`finite_belief`).

Why a module of its own: a file written by another system can hold anything a debater typed,
including the checker's own `<v_passage>` mark, JSON nested a million deep, a `\\ud800` escape
(read as U+FFFD, as every reader reads it), or tens of thousands of unclosed tags; each must end
as one line (exit 2), a replacement character or an unverified quote, never a traceback, a hang,
or green text in `view`.
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from oversight_bench.api import BenchError, fold_marks, load_json_text, read_input_bytes

#: the largest import file read (the Khan et al. CSV is 3.6 MB, the NYU metadata 0.7 MB)
MAX_IMPORT_BYTES = 256 << 20
#: the largest room file read out of the NYU tar (the biggest official room is well under 1 MB)
MAX_MEMBER_BYTES = 64 << 20


def read_json(data: bytes | str, where: str, expected: str) -> Any:
    """JSON from an import file: the project's one strict reader (`load_json_text`: nesting, NaN, huge
    integers; a lone surrogate escape read as U+FFFD, the one rule), each failure one line naming `where`."""
    return load_json_text(data, where, expected)


def read_file(path: Path, what: str) -> bytes:
    return read_input_bytes(path, what, MAX_IMPORT_BYTES)


def read_member(tar: Any, member: Any) -> bytes:
    """One file out of a tar, at most MAX_MEMBER_BYTES (a member's declared size is not trusted)."""
    if member.size > MAX_MEMBER_BYTES:
        raise ValueError(f"{member.name} is {member.size:,} bytes, more than {MAX_MEMBER_BYTES:,}")
    data = tar.extractfile(member).read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise ValueError(f"{member.name} is more than {MAX_MEMBER_BYTES:,} bytes")
    return data


def read_csv_rows(path: Path, required: str, expected: str) -> list[dict[str, str]]:
    """The rows of an import CSV (header first) read through the bounded reader; a file without the
    `required` column, not UTF-8, or not CSV is one line naming the file (and line)."""
    data = read_file(path, "import file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BenchError(f"{path}: not UTF-8 (byte {exc.start}); expected {expected}") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_IMPORT_BYTES)
    try:
        if not reader.fieldnames or required not in reader.fieldnames:
            raise BenchError(f"{path}: no {required!r} column; expected {expected}")
        return list(reader)
    except csv.Error as exc:
        raise BenchError(f"{path} line {reader.line_num}: cannot read it ({' '.join(str(exc).split())}); "
                         f"expected {expected}") from None
    finally:
        csv.field_size_limit(limit)


#: how far a final belief's two probabilities may sum from 1 (the source rounds them)
BELIEF_SUM_TOLERANCE = 0.02


def finite_belief(values: Any, where: str) -> list[float]:
    """A final belief: two probabilities (each from 0 to 1, summing to 1 within BELIEF_SUM_TOLERANCE).
    NaN, an infinity, [-3, 4], a string or a list of another length is one line (a NaN compared with
    anything, or -3 < 4, would silently be a verdict for answer 2)."""
    try:
        p = [float(x) for x in values]
    except (TypeError, ValueError, OverflowError):
        p = []
    if len(p) != 2 or not all(math.isfinite(x) and 0 <= x <= 1 for x in p) or abs(sum(p) - 1) > BELIEF_SUM_TOLERANCE \
            or isinstance(values, (str, bytes)):
        shown = repr(values)
        raise BenchError(f"{where}: final belief {shown[:60]} is not two finite probabilities; expected [p1, p2]")
    return p


# -- quote tags, paired in linear time ---------------------------------------------------------------


def pair_tags(text: str, tag: re.Pattern) -> Iterator[tuple[re.Match, re.Match]]:
    """(opening, closing) tag pairs of `text`, as `<open>(.*?)<close>` would find them left to right,
    in one pass: the tags are found once, and each opening is paired with the first closing after it
    (a lazy regex rescans to the end for every unclosed opening: quadratic in their number). `tag`'s
    group 1 is "/" for a closing tag."""
    tags = list(tag.finditer(text))
    next_close: list[int | None] = [None] * len(tags)
    later = None
    for i in range(len(tags) - 1, -1, -1):
        next_close[i] = later
        if tags[i].group(1):
            later = i
    i = 0
    while i < len(tags):
        j = next_close[i]
        if tags[i].group(1) or j is None:
            if j is None and not tags[i].group(1):
                return  # no closing tag after this one: none after any later opening either
            i += 1
            continue
        yield tags[i], tags[j]
        i = j + 1


def sub_pairs(text: str, tag: re.Pattern, fn: Callable[[re.Match, str, re.Match], str]) -> str:
    """`text` with each pair of `pair_tags` (and what lies between) replaced by fn(open, inner, close)."""
    out, pos = [], 0
    for a, b in pair_tags(text, tag):
        out.append(text[pos:a.start()])
        out.append(fn(a, text[a.end():b.start()], b))
        pos = b.end()
    out.append(text[pos:])
    return "".join(out)


#: the checker's exact marks: group 1 "/" for closing, group 2 the mark's letter. Their look-alikes
#: are folded into a plain <passage> first by `fold_marks`, the one rule (oversight_bench.model_text).
_EXACT = re.compile(r"<(/?)([vu])_passage>")


def reverify(shown: Any, article: str, check: Callable[[str, str], bool]) -> Any:
    """An imported turn's `shown` text as a reader may trust it: each `<v_passage>...</v_passage>` is
    kept only where `check(quote, article)` holds (the importer's own rule) and becomes
    `<u_passage>` otherwise, whoever wrote it (a debater's text may hold the mark itself); every
    other mark or look-alike left unpaired becomes a plain `<passage>`, so nothing but a checked
    quote can render as verified."""
    if not isinstance(shown, str):
        return shown
    shown = fold_marks(shown)  # zero-width, fullwidth, Cyrillic ... look-alikes: plain <passage>
    if "_passage>" not in shown:
        return shown

    out, pos = [], 0
    for a, b in pair_tags(shown, _EXACT):
        inner = shown[a.end():b.start()]
        out.append(_plain(shown[pos:a.start()]))  # between pairs: strays and look-alikes, plain
        if a.group(2) == b.group(2) == "v" and check(inner, article):
            out.append(f"<v_passage>{inner}</v_passage>")
        else:
            out.append(f"<u_passage>{_plain(inner)}</u_passage>")
        pos = b.end()
    out.append(_plain(shown[pos:]))
    return "".join(out)


def _plain(text: str) -> str:
    return _EXACT.sub(lambda m: "</passage>" if m.group(1) else "<passage>", text)
