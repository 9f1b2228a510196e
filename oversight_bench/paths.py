"""Paths that configuration files name, checked before anything opens them.

A task YAML's `files:` are globs relative to the data directory; an absolute path or a `..` would
read files outside it (and `Path.glob` refuses absolute patterns with a traceback).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Iterable

from oversight_bench.errors import BenchError


def check_relative_patterns(patterns: Iterable[str], where: str, field: str = "files", *,
                            base: str = "the data directory", example: str = "quality/train.jsonl") -> None:
    """Refuse (one line, naming `where` and `field`) a pattern that is absolute, starts at a home
    folder or a drive, or climbs out with `..`; `base` is what it must stay inside."""
    for pattern in patterns:
        text = str(pattern).strip()
        posix, win = PurePosixPath(text.replace("\\", "/")), PureWindowsPath(text)
        if not text:
            problem = "is empty"
        elif posix.is_absolute() or win.is_absolute() or win.drive or text.startswith("~"):
            problem = "is an absolute path"
        elif ".." in posix.parts or re.search(r"(^|/)\.\.(/|$)", text.replace("\\", "/")):
            problem = f"climbs out of {base} with '..'"
        else:
            continue
        raise BenchError(f"{where}: {field} entry {text!r} {problem}; expected a path relative to {base} "
                         f"(e.g. {example})")
