"""`--carry`'s files: a previous build's results.json and the data its transcript pages were rendered
from, read bounded and never through a link, then checked by `analysis.carry` (`check_carry`,
`check_page`). The reading is here, the checking there: analysis touches no file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oversight_bench.analysis.carry import check_carry, check_page
from oversight_bench.errors import BenchError
from oversight_bench.yamlio import load_json_text, read_input_bytes

#: the largest results.json (or page data) read from a carried board; a real one is well under 1 MB
MAX_CARRY_BYTES = 64 << 20


def load_carry(path: str | Path, board: Path | None = None) -> dict[str, Any]:
    """A previous build's results.json, checked (`analysis.carry.check_carry`), with the data of each
    page it links read from the carried board, else from `board` (the board being rebuilt)."""
    raw = read_input_bytes(Path(path), "--carry", MAX_CARRY_BYTES)
    prev = load_json_text(raw, f"--carry {path}", "a leaderboard's results.json")
    folders = [Path(path).parent, *([board] if board else [])]
    return check_carry(prev, path, lambda link: _carried_page(folders, link))


def _carried_page(folders: list[Path], link: str) -> dict[str, Any] | None:
    """The data a carried page was rendered from (`_write_page`), read from the transcripts folder of
    the carried board, else of the board being rebuilt (its own earlier pages): a link on the way or
    a file outside that folder is refused; a page without data (a build before pages kept it) is
    None, and its cell keeps no page."""
    for folder in folders:
        data_file = folder / (link.removesuffix(".html") + ".json")
        for p in (folder / "transcripts", data_file, folder / link):
            if p.is_symlink():
                raise BenchError(f"--carry: {p} is a symbolic link; expected the carried board's own files (pages are "
                                 f"rendered again from their data, never copied or followed)")
        if data_file.is_file():
            break
    else:
        return None
    if not data_file.resolve().is_relative_to(folder.resolve()):
        raise BenchError(f"--carry: {data_file} lies outside the carried folder {folder}; expected its own files")
    raw = read_input_bytes(data_file, "--carry page data", MAX_CARRY_BYTES, follow_symlinks=False)
    return check_page(load_json_text(raw, f"--carry page data {data_file}", "a leaderboard page's data"), data_file)
