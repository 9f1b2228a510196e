"""Judge tools (beyond the paper): a plugin's check whose short report on each answer goes into the
judge's prompt, e.g. the result of executing each answer's program in a sandbox.

The core knows only the generic notion: a `JudgeTool` has a name, the tasks it supports, a label
saying what its output is, and `run(question, answers)` giving one short text per answer. A run turns
one on with `-o judge_tool=NAME` (`CommonOptions.judge_tool`, a judge option outside the paper,
declared as a deviation); plugins register tools through the `register_judge_tools` hook. A run or
re-judging that asks for a tool on a task it does not support is refused before anything is written
(`check_judge_tool`). Tool output is untrusted text: `ToolOutput` keeps each answer's text to one
bounded line, and the protocols show it as data after the answers and the transcript.
"""

from __future__ import annotations

import abc
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable

from oversight_bench.errors import BenchError
from oversight_bench.questions import Question

#: the most characters of one answer's tool text the judge sees (longer text is cut and marked)
MAX_CHARS = 300
CUT_MARK = " [... cut]"
#: what a tool name may be (it names the tool in configs, records and reports)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class JudgeTool(abc.ABC):
    """Base class of judge tools (hook `register_judge_tools`)."""

    name: str
    description: str = ""
    #: what the output is, as the judge's prompt names it, e.g. "the result of running each answer's
    #: program in an isolated sandbox"
    label: str
    #: the tasks it supports (by name); override `supports` for another rule
    tasks: tuple[str, ...] = ()

    def supports(self, task: str) -> bool:
        return task in self.tasks

    @abc.abstractmethod
    def run(self, question: Question, answers: tuple[str, str]) -> tuple[str, str]:
        """One short text per answer, in the order given. It runs in a worker thread and may block.
        A `BenchError` stops the run with one line (every job would hit it); any other exception fails
        only this job (it is retried when the run is resumed), so raise one for a verdict the machine,
        not the answer, caused."""


def one_line(text: Any, limit: int = MAX_CHARS) -> str:
    """`text` as one bounded line: control and format characters (including newlines and bidi
    overrides) become spaces, whitespace runs fold, and text beyond `limit` is cut and marked."""
    s = "".join(" " if unicodedata.category(c)[0] in "CZ" else c for c in str(text))
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit - len(CUT_MARK)].rstrip() + CUT_MARK


@dataclass(frozen=True)
class ToolOutput:
    """What a judge tool reported for the two answers, in the order they are displayed."""

    tool: str
    label: str
    blocks: tuple[str, str]

    @classmethod
    def of(cls, tool: JudgeTool, blocks: Iterable[Any]) -> "ToolOutput":
        """The tool's texts, each made one bounded line (`one_line`); a tool that gives other than two
        texts is a plugin bug, refused."""
        blocks = tuple(blocks)
        if len(blocks) != 2:
            raise RuntimeError(f"judge tool {tool.name} gave {len(blocks)} texts for two answers")
        return cls(tool.name, one_line(tool.label, 200), (one_line(blocks[0]), one_line(blocks[1])))

    def swapped(self) -> "ToolOutput":
        """The same output for the answers displayed in the other order."""
        return ToolOutput(self.tool, self.label, (self.blocks[1], self.blocks[0]))

    def record(self) -> dict[str, Any]:
        return {"tool": self.tool, "output": list(self.blocks)}


def available_tools() -> dict[str, JudgeTool]:
    from oversight_bench.registry import get_registry

    reg = get_registry()
    return {name: reg.get("judge_tools", name) for name in reg.names("judge_tools")}


def _listing(tools: dict[str, JudgeTool]) -> str:
    return ", ".join(f"{n} (tasks: {', '.join(t.tasks) or 'see its plugin'})" for n, t in sorted(tools.items())) or "none installed"


def get_judge_tool(name: str) -> JudgeTool:
    """The installed judge tool `name`; an unknown name is a one-line error listing the known ones."""
    tools = available_tools()
    if name not in tools:
        import difflib

        close = difflib.get_close_matches(name, list(tools), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise BenchError(f"unknown judge tool {name!r}{hint} Known judge tools: {_listing(tools)}")
    return tools[name]


def check_judge_tool(name: str | None, tasks: Iterable[str]) -> JudgeTool | None:
    """The run's judge tool (None: none asked for), refused in one line when it is not installed or
    does not support one of `tasks`."""
    if not name:
        return None
    tool = get_judge_tool(name)
    try:  # the plugin's code: what it raises is one line naming the tool and its package, not a traceback
        unsupported = sorted({t for t in tasks if not tool.supports(t)})
        supported = ", ".join(tool.tasks)
        tool_provenance(tool)
    except Exception as exc:  # noqa: BLE001 - BenchError too: the line names the plugin either way
        from oversight_bench.registry import failure_text, get_registry

        entry = get_registry().entries["judge_tools"].get(name)
        package = f" of {entry.package} {entry.version}" if entry else ""
        raise BenchError(f"judge tool {name!r}{package} is broken: {failure_text(exc)}; fix or uninstall its plugin, "
                         f"or drop -o judge_tool") from None
    if unsupported:
        raise BenchError(f"judge tool {name!r} does not support task {unsupported[0]}"
                         f"{f' (nor {len(unsupported) - 1} more)' if len(unsupported) > 1 else ''}; it supports "
                         f"{supported or 'the tasks its plugin names'}: drop -o judge_tool or run it on those tasks only")
    return tool


def tool_provenance(tool: JudgeTool) -> dict[str, Any]:
    """What a run's config records of its judge tool: name, label and the package that registered it."""
    from oversight_bench.registry import get_registry

    entry = get_registry().entries["judge_tools"].get(tool.name)
    return {"name": tool.name, "label": tool.label, "tasks": list(tool.tasks),
            "package": entry.package if entry else None, "version": entry.version if entry else None}
