"""One error type for everything a user can get wrong: the CLI prints it in one line, exit code 2."""

from __future__ import annotations

from typing import Collection


#: the most of anything an input counts (questions, games, calls in flight, resamples): a count past it
#: is a typo, and Python's own limits (islice's, sqlite's 64-bit integers) would end it in a traceback
MAX_COUNT = 10**9


class BenchError(Exception):
    """A user-facing error: bad input, unknown name, missing data, unreachable model.

    The message names what was wrong and what was expected; the CLI prints it
    without a traceback and exits with status 2.
    """


def validation_error(exc, where: str, *, noun: str = "field", model: type | None = None,
                     flags: Collection[str] = ()) -> BenchError:
    """The first error of a pydantic `ValidationError` as the one line every command prints: where,
    which `noun` (field, option), the value given and what was expected. `model` (the validated
    class) adds the known names to an unknown one and a field's `description` as what is expected;
    a field in `flags` came from the command line and is named as its flag (`--prior-games -1`)."""
    from oversight_bench.redact import redact_text

    err = exc.errors()[0]
    msg = str(err["msg"]).removeprefix("Value error, ")
    loc = ".".join(str(x) for x in err["loc"])
    if not loc:  # a check of the whole object
        return BenchError(f"{where}: {msg}"[:800])
    if err["type"] == "extra_forbidden":
        known = f"; expected one of {', '.join(sorted(model.model_fields))}" if model is not None else ""
        return BenchError(f"{where}: unknown {noun} {loc!r}{known}"[:800])
    info = _field(model, err["loc"])
    expected = f"; expected {info.description}" if info is not None and info.description else ""
    if err["type"] == "missing":
        return BenchError(f"{where}: {noun} {loc!r} is required{expected}"[:800])
    value = err.get("input")
    shown = repr(redact_text(value)) if isinstance(value, str) else redact_text(repr(value))
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    given = f"--{loc.replace('_', '-')} {shown}" if loc in flags else f"{noun} {loc}={shown}"
    return BenchError(f"{where}: {given} is not valid ({msg[:1].lower() + msg[1:]}){expected}"[:800])


def _field(model, loc):
    """The pydantic field a location names, following nested models (None where it leaves them)."""
    info = None
    for part in loc:
        fields = getattr(model, "model_fields", None)
        info = fields.get(str(part)) if isinstance(fields, dict) else None
        if info is None:
            return None
        model = info.annotation
    return info


class MalformedResponse(Exception):
    """A model server answered, but not with a usable completion: empty `choices`, `null`
    content, a 200 whose body is not JSON. Adapters raise it; the runner re-sends the call a
    bounded number of times and then fails only the job that made it (recorded, counted and
    summarised), so one odd answer never stops a run. Not a BenchError: it is no user mistake,
    and the other jobs may well get through."""

    user_facing = True  # its message is the whole story: no traceback in the run's errors


def disk_full(exc: BaseException, folder: object = None) -> bool:
    """Whether an error means the disk (or quota) is full: ENOSPC/EDQUOT, SQLite's SQLITE_FULL, or
    an SQLite I/O error while `folder`'s file system has (almost) no space left, which is how a
    failed growth of the WAL index shows."""
    import errno
    import os
    import sqlite3

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if not isinstance(exc, sqlite3.Error):
        return False
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if code == 13 or "disk is full" in str(exc):  # SQLITE_FULL
        return True
    if (code == 10 or "disk I/O error" in str(exc)) and folder is not None:  # SQLITE_IOERR
        try:
            st = os.statvfs(str(folder))
        except OSError:
            return False
        return st.f_bavail * st.f_frsize < (1 << 20)
    return False


def disk_full_error(folder: object) -> BenchError:
    """The one line for a full disk: what happened, that nothing finished is lost, how to go on."""
    return BenchError(f"no space left on the device holding {folder}: free some space and run the same command again "
                      f"(finished records are saved; a run resumes where it stopped)")


def _unprintable(c: str) -> bool:
    """A character that would not print as itself on one terminal line: a C0/C1 control or DEL (an
    ESC starts a terminal escape sequence), a bidirectional override that reorders what follows
    (U+202A-202E, U+2066-2069), a lone surrogate."""
    o = ord(c)
    return o < 32 or 0x7F <= o <= 0x9F or 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069 or 0xD800 <= o <= 0xDFFF


def show_path(path: object) -> str:
    """A path as an error line shows it: as given, or by repr where it holds a character that would
    not print as itself on one line (`_unprintable`)."""
    text = str(path)
    return repr(text) if any(map(_unprintable, text)) else text


def terminal_line(text: object) -> str:
    """A message as one terminal line: its lines joined by spaces, and every character that would not
    print as itself written as its escape (an ESC or a right-to-left override that a spec, a file name or
    a server's error carries into the message must not restyle or reorder what the user reads)."""
    joined = " ".join(str(text).splitlines())
    return "".join(c.encode("unicode_escape").decode("ascii") if _unprintable(c) else c for c in joined)
