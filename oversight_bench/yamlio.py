"""Reading a YAML file safely, with one-line errors that name the file, line and problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from oversight_bench.errors import BenchError


def read_yaml_mapping(path: str | Path, expected: str, kind: str = "config") -> dict[str, Any]:
    """The mapping in `path` (safe_load); `kind` names the file and `expected` what it should
    hold, for the error."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchError(f"cannot read {kind} {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise BenchError(f"{path}: invalid YAML{at}: {getattr(exc, 'problem', exc)}") from None
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
        if "=" not in pair:
            raise BenchError(f"{flag} {pair!r} is not KEY=VALUE (e.g. {flag} rounds=1)")
        k, v = pair.split("=", 1)
        try:
            out[k.strip()] = yaml.safe_load(v)
        except yaml.YAMLError as exc:
            raise BenchError(f"{flag} {pair!r}: the value is not valid YAML ({getattr(exc, 'problem', exc)})") from None
    return out
