"""What a sandboxed program did (`SandboxResult`), read from the launcher's JSON and checked field by
field: exactly its fields, each of the expected type and size, numbers read as finite floats (never
as unbounded ints). Anything else is the program's own failure; only the supervisor (`sandbox`)
can mark a result `transient`, for a sandbox whose program never ran."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

STATUSES = ("ok", "error", "timeout", "memory", "no_answer")


@dataclass(frozen=True)
class SandboxResult:
    """What one program did: `status` is one of STATUSES."""

    status: str
    answer: Any = None
    stdout: str = ""
    error: str = ""
    #: the program never started (the sandbox, its cgroup or its filter could not be made, bwrap or
    #: the launcher failed): no verdict. Set by the supervisor only, never from the program's result
    transient: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def matches(self, expected: float, rel_tol: float = 1e-6, abs_tol: float = 1e-4) -> bool:
        """Whether the program's answer equals a numeric ground truth."""
        value = numeric(self.answer) if self.ok else None
        return value is not None and math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)


def numeric(value: Any) -> float | None:
    """A number from an answer (float, int, or text such as '$1,200' or '18.0'), else None."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, (int, float)):
            f = float(value)
        else:
            f = float(str(value).strip().replace(",", "").replace("$", "").rstrip("."))
    except (ValueError, OverflowError):
        return None
    return f if math.isfinite(f) else None


_FIELDS = {"status", "answer", "error", "stdout"}


def _no_constant(name: str):
    raise ValueError(name)


def parse_result(raw: bytes, rc: int, job: dict) -> SandboxResult:
    """Check the launcher's JSON (all that followed STARTED): exactly its fields, each
    of the expected type and size; numbers are read as floats (never as unbounded ints), and anything
    else is the program's own failure. Nothing in it can make the result `transient` (a program can
    write its own result): only the supervisor marks that, for a sandbox whose program never ran."""
    malformed = SandboxResult("error", error="malformed result")
    if not raw:  # the program ran and died without a result: its own doing
        if rc in (128 + 24, 128 + 9, -24, -9):  # SIGXCPU / SIGKILL at the hard CPU limit
            return SandboxResult("timeout", error=f"CPU time over {job['cpu']}s")
        return SandboxResult("error", error=f"program ended without a result (exit status {rc})")
    try:
        d = json.loads(raw.decode("utf-8"), parse_int=float, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError, OverflowError, MemoryError):
        return malformed
    if not isinstance(d, dict) or set(d) != _FIELDS:
        return malformed
    status, answer, error, stdout = (d[k] for k in ("status", "answer", "error", "stdout"))
    valid = (isinstance(status, str) and status in STATUSES and isinstance(error, str) and len(error) <= 500
             and isinstance(stdout, str) and len(stdout) <= job["max_output"]
             and (answer is None or isinstance(answer, bool) or (isinstance(answer, float) and math.isfinite(answer))
                  or (isinstance(answer, str) and len(answer) <= 1000)))
    if not valid:
        return malformed
    return SandboxResult(status, answer, stdout, error)
