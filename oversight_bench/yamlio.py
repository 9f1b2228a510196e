"""Reading untrusted YAML and JSON, with one-line errors that name the input, the place and the problem.

YAML is scanned as events before it is built: PyYAML builds nested values recursively (deep nesting
is a RecursionError) and shares aliased values, which anything that walks them (validation, JSON)
expands without bound, so depth and the expanded size are bounded first. Values the constructors
cannot make (an integer of 5,000 digits, 30 February) are errors of the input too.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from oversight_bench.errors import BenchError, show_path
from oversight_bench.model_text import replace_surrogates

#: nesting that any configuration of this tool stays far below
MAX_DEPTH = 64
#: values in a document once its aliases are expanded
MAX_VALUES = 200_000
#: bits of the largest integer read (hexadecimal and octal have no digit limit; printing one has)
MAX_INT_BITS = 1024
#: bytes of the largest YAML or JSON input read (a config, a task config, a run's config.json)
MAX_INPUT_BYTES = 16 * 1024 * 1024


def read_input_bytes(path: str | Path, what: str, max_bytes: int = MAX_INPUT_BYTES, *,
                     follow_symlinks: bool = True) -> bytes:
    """The bytes of the input file `path` (`what` names it in the error: "config", "--carry"...):
    a regular file (symbolic links followed unless `follow_symlinks` is off) of at most `max_bytes`.
    Anything else (a folder, a FIFO, a device such as /dev/zero, a socket), a file too large or one
    that cannot be read is one BenchError naming it and what was expected; a FIFO is never opened,
    so nothing waits on it. The one bounded reader of untrusted input files."""
    shown = show_path(path)
    expected = f"expected a regular file of at most {max_bytes // (1024 * 1024) or max_bytes} " + \
        ("MB" if max_bytes >= 1024 * 1024 else "bytes")
    try:
        info = os.stat(path) if follow_symlinks else os.lstat(path)
    except (OSError, ValueError) as exc:
        raise BenchError(f"cannot read {what} {shown}: {getattr(exc, 'strerror', None) or exc}; {expected}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode)
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "a symbolic link" if stat.S_ISLNK(info.st_mode)
                else "something else")
        raise BenchError(f"{what} {shown} is {kind}, not a regular file; {expected}")
    if info.st_size > max_bytes:
        raise BenchError(f"{what} {shown} is {info.st_size:,} bytes, more than {max_bytes:,} bytes; {expected}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= 0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0)
    try:
        # O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer
        fd = os.open(path, flags)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise BenchError(f"{what} {shown} is not a regular file; {expected}")
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(max_bytes + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        raise BenchError(f"cannot read {what} {shown}: {exc.strerror}; {expected}") from None
    if len(data) > max_bytes:
        raise BenchError(f"{what} {shown} is more than {max_bytes:,} bytes (it grew while read); {expected}")
    return data


def decode_utf8(data: bytes, where: str, what: str) -> str:
    """`data` as text, or a one-line error naming the first byte that is not UTF-8 and its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise BenchError(f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}, column {column}); "
                         f"expected {what} saved as UTF-8") from None


def read_input_text(path: str | Path, what: str, expected: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """An untrusted input file's text: `read_input_bytes`' bounds, then `decode_utf8`'s one-line error
    (`expected` says what the file should hold, e.g. "one judge name a line")."""
    return decode_utf8(read_input_bytes(path, what, max_bytes), f"{what} {show_path(path)}", expected)


def _at(mark: Any) -> str:
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _check_shape(text: str, where: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH, an alias inside the value it names (a cycle), and more
    than MAX_VALUES values once aliases are expanded; parse errors surface as yaml.YAMLError."""
    stack: list[tuple[str | None, int]] = []  # open collections: (anchor, values before it)
    size: dict[str, int] = {}  # anchor -> values of the node it names
    total = 0
    for ev in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(ev, yaml.CollectionStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise BenchError(f"{where}: nested deeper than {MAX_DEPTH} levels{_at(ev.start_mark)}; "
                                 f"expected a flat configuration")
            stack.append((ev.anchor, total))
            total += 1
        elif isinstance(ev, yaml.CollectionEndEvent):
            anchor, before = stack.pop()
            if anchor is not None:
                size[anchor] = total - before
        elif isinstance(ev, yaml.ScalarEvent):
            total += 1
            if ev.anchor is not None:
                size[ev.anchor] = 1
        elif isinstance(ev, yaml.AliasEvent):
            if any(anchor == ev.anchor for anchor, _ in stack):
                raise BenchError(f"{where}: alias *{ev.anchor}{_at(ev.start_mark)} refers to itself (the value it "
                                 f"names contains it); expected a value that ends")
            total += size.get(ev.anchor, 1)
        if total > MAX_VALUES:
            raise BenchError(f"{where}: more than {MAX_VALUES:,} values once its aliases are expanded"
                             f"{_at(ev.start_mark)}; expected a configuration without aliases that multiply")


def _check_ints(data: Any, where: str) -> None:
    """Refuse an integer too large to print (a 0x... of 5,000 digits reads, then fails in the error
    that names it). The tree is bounded by `_check_shape`."""
    if isinstance(data, dict):
        for k, v in data.items():
            _check_ints(k, where)
            _check_ints(v, where)
    elif isinstance(data, list):
        for v in data:
            _check_ints(v, where)
    elif isinstance(data, int) and data.bit_length() > MAX_INT_BITS:
        raise BenchError(f"{where}: a number of {data.bit_length()} bits; expected numbers under {MAX_INT_BITS} bits")


class _OneValuePerKey(yaml.SafeLoader):
    """safe_load's loader, refusing a key given twice in one mapping (`seed: 1` then `seed: 2`: which
    was meant?); a merge (`<<: *base`) may still be overridden, as YAML says."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"key {key!r} is given twice in one mapping", key_node.start_mark)
                    seen.add(key)
                except TypeError:  # an unhashable key: the base loader says so
                    pass
        return super().construct_mapping(node, deep)


def load_yaml_text(text: str, where: str) -> Any:
    """`yaml.safe_load(text)` for untrusted text, a key given twice refused; every failure is one
    BenchError naming `where`."""
    try:
        _check_shape(text, where)
        data = yaml.load(text, Loader=_OneValuePerKey)  # noqa: S506 - SafeLoader's subclass
        _check_ints(data, where)
        return data
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if isinstance(exc, yaml.reader.ReaderError):  # a control character: the reader has no mark
            problem = f"character #x{exc.character:04x} is not allowed (position {exc.position})"
        else:
            problem = getattr(exc, "problem", None) or exc
        raise BenchError(f"{where}: invalid YAML{_at(mark)}: {' '.join(str(problem).split())}") from None
    except (ValueError, OverflowError, TypeError) as exc:  # int("9" * 5000), date(2001, 2, 30)
        raise BenchError(f"{where}: a value cannot be read ({' '.join(str(exc).split())}); expected numbers "
                         f"under 4300 digits and real dates") from None


def read_yaml_mapping(path: str | Path, expected: str, kind: str = "config") -> dict[str, Any]:
    """The mapping in `path` (safe_load); `kind` names the file and `expected` what it should
    hold, for the error."""
    raw = read_input_bytes(path, kind)
    data = load_yaml_text(decode_utf8(raw, str(path), f"a YAML {kind}"), str(path))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BenchError(f"{path}: expected a mapping of {expected}, got {type(data).__name__}")
    return data


def parse_key_values(pairs: tuple[str, ...] | list[str], flag: str = "--option") -> dict[str, Any]:
    """`KEY=VALUE` pairs (the `-o/--option` flags) as a dict, each value read as YAML so that
    `rounds=1` is a number and `truncate_words=true` a boolean."""
    out = {}
    for pair in pairs:
        k, sep, v = pair.partition("=")
        if not sep or not k.strip():
            raise BenchError(f"{flag} {pair[:80]!r} is not KEY=VALUE (e.g. {flag} rounds=1)")
        where = f"{flag} {k.strip()!r}"
        if any("\udc80" <= c <= "\udcff" for c in pair):  # bytes the shell passed that are not UTF-8
            raise BenchError(f"{where}: not UTF-8 text; expected e.g. {flag} rounds=1")
        if k.strip() in out:  # `-o rounds=2 -o rounds=3`: which was meant?
            raise BenchError(f"{where} is given twice; expected each option once")
        out[k.strip()] = load_yaml_text(v, where)
    return out


def _non_finite(text: str) -> float:
    raise ValueError(f"non-finite number {text}")


def _finite(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else _non_finite(text)


#: json's decoder refusing NaN and the infinities, written as such or as a number too large for a
#: float (`1e999`), which would otherwise reach the figures as inf
_STRICT = json.JSONDecoder(parse_constant=_non_finite, parse_float=_finite)
#: a JSON escape of a surrogate (a lone one decodes to no character, which no UTF-8 output can take)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _no_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its texts (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    return value


def strict_json(text: Any) -> Any:
    """The one reader of JSON this tool did not just write (a store's columns, config.json, a carried
    board, an import, a model server's reply): ValueError when `text` is not text holding JSON whose
    numbers are finite, nested no deeper than the parser goes, integers no longer than Python reads.
    The one rule for lone surrogates: a `\\ud800` escape reads as U+FFFD, as a model's reply is
    stored (`model_text.replace_surrogates`), so every page and file can be written with it."""
    if not isinstance(text, str):
        raise ValueError(f"a {type(text).__name__}, not JSON text")
    try:
        value = _STRICT.decode(text)
        return _no_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value
    except RecursionError:
        raise ValueError("nested too deeply") from None


def load_json_text(data: bytes | str, where: str, expected: str) -> Any:
    """`strict_json` for untrusted bytes: not UTF-8, not JSON, NaN/Infinity (or `1e999`), nesting too
    deep for the parser and integers too long to read are each one BenchError naming `where` and
    `expected`."""
    text = decode_utf8(data, where, expected) if isinstance(data, bytes) else data
    try:
        return strict_json(text)
    except ValueError as exc:  # JSONDecodeError, NaN, 1e999, int("9" * 5000), too deep
        if str(exc) == "nested too deeply":
            raise BenchError(f"{where}: nested too deeply to read; expected {expected}") from None
        raise BenchError(f"{where}: not JSON ({' '.join(str(exc).split())}); expected {expected}") from None
