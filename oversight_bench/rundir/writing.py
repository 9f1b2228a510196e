"""Opening a run directory for writing: the one way any command (run, judge, elo, an import, the
human study) gets a writable store. Everything that can be refused is checked before the first
write (`begin`); a start abandoned before it leaves the output folder as it found it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from oversight_bench.errors import BenchError
from oversight_bench.questions import Question
from oversight_bench.rundir.identity import check_data, check_identity, keep_names
from oversight_bench.rundir.names import CONFIG_NAME, DB_NAME, LOCK_NAME
from oversight_bench.rundir.store import Store, remove_new_store_files


def check_output(output: Any, *, fresh: bool = False, what: str = "run") -> Path:
    """`--output` names a new folder, an empty one, or a run to resume (`fresh`: not a run); anything
    else is refused (an empty name would be the current folder; a folder of other files is no run)."""
    if output is None or not str(output).strip():
        raise BenchError("--output is empty; expected the run's folder (new, empty, or a run to resume)")
    path = Path(output)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise BenchError(f"--output {path} is not a folder; expected a new or empty folder, or a run to resume")
        names = _entries(path)
        if fresh and DB_NAME in names:
            raise BenchError(f"output directory {path} already holds a run; expected a new or empty folder for the {what}")
        if names and not names & {DB_NAME, CONFIG_NAME}:
            shown = ", ".join(sorted(names)[:3]) + (", ..." if len(names) > 3 else "")
            raise BenchError(f"--output {path} holds other files ({shown}) but no run; expected a new or empty folder, "
                             f"or a run directory to resume")
    return path


def _entries(path: Path) -> set[str]:
    """The names in a folder, a lock left by an earlier start aside."""
    try:
        return {p.name for p in path.iterdir()} - {LOCK_NAME}
    except FileNotFoundError:
        return set()


def _make_folders(path: Path) -> list[Path]:
    """Create `path` and any missing folders above it, one at a time; return those this call made,
    outermost first (a folder another process made meanwhile is theirs, not in the list)."""
    path = path.absolute()
    missing = []
    while not path.exists() and path.parent != path:
        missing.append(path)
        path = path.parent
    made = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            _remove_empty(made)
            raise BenchError(f"cannot write to output directory {folder}: {exc.strerror}; expected a writable folder") from None
        made.append(folder)
    return made


def _remove_empty(folders: list[Path]) -> None:
    """Remove `folders` innermost first while each is empty: a folder that holds anything (another
    command's run written beside this one meanwhile) stays, and so does every folder above it."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return


class WritableRun:
    """A run directory opened for writing (its lock held). Until `begin` nothing of the run is
    written but what the start's checks need; `abandon` then removes what this start created and
    nothing else: the store files that appeared while it held the lock, then each folder it made
    while that folder is empty (never `rmtree`: two runs started into one new parent share it)."""

    def __init__(self, output: Any, *, fresh: bool = False, what: str = "run"):
        out = check_output(output, fresh=fresh, what=what)
        self._made = _make_folders(out)
        self.started = False
        try:
            self.store = Store.open(out, write=True)
        except BaseException:
            _remove_empty(self._made)
            raise
        self.dir = self.store.dir

    def check_identity(self, config: dict[str, Any]) -> dict[str, Any]:
        """The resumed run's stored config ({}: a new run); refused when its settings differ."""
        return check_identity(self.store, config)

    def keep_names(self, config: dict[str, Any]) -> list[str]:
        """See `identity.keep_names`: after `check_identity` passed."""
        return keep_names(self.store, config)

    def check_data(self, data: dict[str, dict[str, str]]) -> None:
        check_data(self.store, data)

    def begin(self, config: dict[str, Any], identity: dict[str, Any], *, skipped: dict[str, dict[str, int]] | None = None,
              questions: Iterable[Question] = ()) -> None:
        """Every check passed: record the run's identity, its config, the rows its tasks skipped and
        the questions at hand. From here on the run's writes stay."""
        self.started = True
        self.store.write_identity(identity)
        self.store.write_config(config)
        for task, reasons in (skipped or {}).items():
            self.store.record_skipped(task, reasons)
        self.store.put_questions(questions)

    def close(self) -> None:
        """Close the store; a start that never reached `begin` is undone, its store files removed
        while the lock is still held (so they can only be this start's), its folders after."""
        if self.started:
            self.store.close()
            return
        lock = self.store.detach_lock()
        try:
            self.store.close()
            remove_new_store_files(self.dir, self.store.found)
        finally:
            if lock is not None:
                os.close(lock)
            _remove_empty(self._made)
