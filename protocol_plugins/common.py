"""What the built-in protocols share besides the public agent and judge machinery (`oversight_bench.api`:
agent turns with budgets and best-of-N, the judge's decision): the paper's prompts around them, the judge
tool's prompt blocks, and the open-role filter (§3.2.3)."""

from __future__ import annotations

import abc
import dataclasses
from typing import Any

from oversight_bench.api import (Context, Decision, Job, Message, Protocol, Turn, agent_article, agent_turn,
                                 judge_decide, judge_examples, parse_answer, relabel, user_message)
from protocol_plugins import prompts

OUTCOME_KEYS = ("agent_choice", "protagonist", "protagonist_correct", "win")
#: the public machinery the protocol modules take from here, as before it was public
__all__ = ["agent_article", "agent_turn", "judge_decide", "judge_examples", "relabel", "user_message", "render_transcript",
           "qa_messages", "ToolBlocks", "judge_tool_blocks", "tool_text", "OpenRoleProtocol", "dropped_decision"]


def render_transcript(turns: list[Turn]) -> list[str]:
    """Transcript entries as others see them: only `shown`, never the raw output with thinking."""
    lines = []
    for t in turns:
        label = f"{t.speaker} (question after round {t.round})" if t.role == "judge" else f"{t.speaker} (round {t.round})"
        lines.append(f"{label}:\n{t.shown}")
    return lines


def qa_messages(ctx: Context, role: str, job: Job, order: str, *, article: str | None, mode: str,
                examples: list, tool: str = "") -> list[Message]:
    q = job.question
    text = prompts.qa_prompt(q, q.answers(order), mode=mode, article=article, examples=examples, tool=tool)
    return user_message(ctx, role, q, text)


# -- the judge tool (beyond the paper) --------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ToolBlocks:
    """A judge tool's output on a job's answers (`Context.judge_tool`), as displayed in `order`."""

    output: Any  # api.ToolOutput
    order: str

    def text(self, order: str) -> str:
        """The prompt block for the answers displayed in `order` (the debiased judge asks both)."""
        out = self.output if order == self.order else self.output.swapped()
        return prompts.tool_output_block(out.label, out.blocks)


async def judge_tool_blocks(ctx: Context, job: Job) -> ToolBlocks | None:
    """The run's judge tool on the job's two answers (`-o judge_tool=NAME`), or None without one."""
    out = await ctx.judge_tool(job.question, job.answers)
    return None if out is None else ToolBlocks(out, job.answer_order)


def tool_text(tool: ToolBlocks | None, order: str) -> str:
    return tool.text(order) if tool is not None else ""


# -- open roles (§3.2.3) ----------------------------------------------------------------------------


async def agent_direct_answer(ctx: Context, job: Job) -> Turn:
    """The agent model's own direct-QA answer: QA with article on extractive tasks, QA without
    otherwise, same prompt as the judge's QA, zero-shot predict at temperature 0 so it is the
    model's most likely answer rather than a judge ablation setting."""
    article = agent_article(job.question)
    messages = qa_messages(ctx, "agent", job, job.answer_order, article=article, mode="predict", examples=[])
    raw = (await ctx.generate("agent", messages, tag="agent_qa", temperature=0.0,
                              max_tokens=ctx.options.predict_max_tokens) or [""])[0]
    via = "qa_with_article" if article is not None else "qa_without_article"
    return Turn(0, "agent", "Agent", raw, raw, parse_answer(raw), {"direct_qa": via})


class OpenRoleProtocol(Protocol):
    """An assigned-role run filtered by the agent's own answer: the protagonist is the speaker whose
    side matches the agent's direct-QA choice. The first turn records that choice."""

    base: Protocol
    open_role = True

    @property
    def speakers(self) -> tuple[str, ...]:  # the agent's own answer, then the assigned-role transcript
        return ("Agent", *self.base.speakers)

    @abc.abstractmethod
    def sub_job(self, job: Job, choice: int) -> Job:
        """The assigned-role job whose protagonist defends `choice`."""

    @abc.abstractmethod
    def protagonist(self, choice: int) -> str:
        """The speaker who defends `choice`."""

    async def run(self, ctx: Context, job: Job) -> tuple[list[Turn], Decision]:
        qa = await agent_direct_answer(ctx, job)
        if qa.defends is None:
            return [qa], dropped_decision()
        turns, decision = await ctx.sub_run(self.sub_job(job, qa.defends))
        return [qa, *turns], self.outcome(job, qa.defends, decision)

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        """The agent's answer and the matching assigned-role transcript (its judging is cached)."""
        return (await self.run(ctx, job))[0]

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        """Judge a stored transcript again: the assigned-role judge on the turns after the agent's answer."""
        choice = turns[0].defends if turns and turns[0].role == "agent" else None
        if choice is None:
            return dropped_decision()
        decision = await self.base.judge(ctx, self.sub_job(job, choice), turns[1:])
        return self.outcome(job, choice, decision)

    def outcome(self, job: Job, choice: int, decision: Decision) -> Decision:
        extra = {**decision.extra, "agent_choice": choice, "protagonist": self.protagonist(choice),
                 "protagonist_correct": choice == job.correct_index,
                 "win": None if decision.answer is None else decision.answer == choice}
        return dataclasses.replace(decision, extra=extra)

    def describe_outcome(self, job: Job, turns: list[Turn], decision: Decision) -> dict[str, Any]:
        return {k: decision.extra.get(k) for k in OUTCOME_KEYS}


def dropped_decision() -> Decision:
    """No assigned run matches an agent whose own answer did not parse: the question drops out."""
    return Decision("", None, None, extra={"reason": "agent's direct-QA answer did not parse; question dropped",
                                           **dict.fromkeys(OUTCOME_KEYS)})
