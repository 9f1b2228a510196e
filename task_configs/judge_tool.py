"""`execute`, the GSM8KQA judge tool (beyond the paper; `-o judge_tool=execute`): each answer's Python
program runs in the bubblewrap sandbox, and the judge's prompt shows its result under its answer.

The programs run exactly as the task's loader runs them (`loaders.gsm8kqa.execute_cached`: the same
time, CPU and memory limits and the same on-disk cache by program hash), so the judge sees what the
loader classified, and a program the loader already ran is not run again. A program that fails
(an error, a timeout, memory, no answer) is shown as that failure. A sandbox whose program never
started (`SandboxResult.transient`, the supervisor's word only) is no verdict: the job fails and is
tried again when the run is resumed. Without bubblewrap an unexecuted program is refused in one line,
as everywhere else (`OVERSIGHT_BENCH_UNSAFE_EXEC=1` runs it without isolation, with a warning).
"""

from __future__ import annotations

import threading
from typing import Any

from oversight_bench.api import JudgeTool, Question

#: one sandbox batch at a time per process (the cache file is appended to), however many runs ask
_LOCK = threading.Lock()
#: program -> result, this process (the on-disk cache is read once per new program batch)
_KNOWN: dict[str, Any] = {}
_KNOWN_MAX = 4096


class ExecuteTool(JudgeTool):
    name = "execute"
    description = "GSM8KQA: run each answer's Python program in the bubblewrap sandbox and show the judge its result"
    label = ("the result of running each answer's Python program in an isolated sandbox (no network, with time "
             "and memory limits)")
    tasks = ("gsm8kqa",)

    def run(self, question: Question, answers: tuple[str, str]) -> tuple[str, str]:
        results = execute(list(answers))
        return describe(results[answers[0]]), describe(results[answers[1]])


def execute(programs: list[str]) -> dict[str, Any]:
    """Each program's `SandboxResult`, run (or read from the loader's cache) once per process."""
    from task_configs.loaders.gsm8kqa import execute_cached

    with _LOCK:
        todo = [p for p in dict.fromkeys(programs) if p not in _KNOWN]
        if todo:
            fresh = execute_cached(todo)
            transient = [r for r in fresh.values() if r.transient]
            if transient:
                raise RuntimeError(f"the sandbox could not give a verdict on a program ({transient[0].error[:200]}); "
                                   f"the machine, not the program, may have caused it: run the same command again")
            if len(_KNOWN) + len(fresh) > _KNOWN_MAX:
                _KNOWN.clear()
            _KNOWN.update(fresh)
        return {p: _KNOWN[p] for p in programs}


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def describe(result: Any) -> str:
    """What the judge reads of one program's run: its answer, or how it failed."""
    from task_configs.sandbox import numeric

    if result.status == "ok":
        value = numeric(result.answer)
        if value is None:
            return f"ran to completion, but its answer is not a number: {result.answer!r}"
        if isinstance(result.answer, str):
            return f"ran to completion; its answer: {result.answer!r} (the number {_number(value)})"
        return f"ran to completion; its answer: {_number(value)}"
    if result.status == "no_answer":
        return ("ran to completion but gave no answer (no ans, answer or result variable, no solution() or solver() "
                "function, nothing printed)")
    if result.status == "timeout":
        return f"failed: stopped at its time limit ({result.error or 'time limit'})"
    if result.status == "memory":
        return "failed: ran out of its memory limit"
    return f"failed with an error: {result.error or 'unknown error'}"
