"""Assigned-role consultancy (§3.2.2): one consultant argues its assigned answer; between its turns
the judge asks one question; after the last turn the judge decides. Every question runs with the
correct and with the incorrect assignment. The transcript depends on the judge's questions, so it
cannot be re-judged by another judge, unless it has one round (no question is asked)."""

from __future__ import annotations

from oversight_bench.api import (CONSULTANT, JUDGE, BenchError, CommonOptions, Context, Decision, Job, Protocol, Turn,
                                 agent_article, agent_turn, judge_decide, judge_examples, user_message)
from protocol_plugins import prompts
from protocol_plugins.common import judge_tool_blocks, render_transcript, tool_text


def assigned_index(job: Job) -> int:
    """The displayed number of the answer the consultant was assigned."""
    if job.assigned_answer is not None:
        return job.assigned_answer
    raise BenchError(f"consultancy needs assignment 'correct' or 'incorrect', not {job.assignment!r}")


class Consultancy(Protocol):
    name = "consultancy"
    description = "One consultant argues an assigned answer (correct and incorrect runs); the judge questions it."
    rejudgeable = False
    speakers = (CONSULTANT, JUDGE)
    open_form = "open_consultancy"
    display_order = 30
    in_default_run = True

    def assignments(self) -> list[str | None]:
        return ["correct", "incorrect"]

    def can_rejudge(self, options: CommonOptions) -> bool:
        return options.rounds == 1  # the judge asks its questions between rounds

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        defends = assigned_index(job)
        turns: list[Turn] = []
        rounds = ctx.options.rounds
        for r in range(1, rounds + 1):
            turns.append(await self.consultant_turn(ctx, job, defends, r, turns))
            if r < rounds:
                turns.append(await self.judge_question(ctx, job, r, turns))
        return turns

    async def consultant_turn(self, ctx: Context, job: Job, defends: int, round_no: int, visible: list[Turn]) -> Turn:
        q = job.question
        text = prompts.consultant_prompt(question=q, answers=job.answers, defends=defends, article=agent_article(q),
                                         round_no=round_no, word_limit=ctx.options.word_limit,
                                         transcript=render_transcript(visible))
        return await agent_turn(ctx, job, messages=user_message(ctx, "agent", q, text), round_no=round_no,
                                role="consultant", speaker=CONSULTANT, defends=defends,
                                tag=f"round{round_no}/{CONSULTANT}")

    async def judge_question(self, ctx: Context, job: Job, round_no: int, visible: list[Turn]) -> Turn:
        """The judge's question after round `round_no`; it is shown to the consultant as written."""
        q = job.question
        text = prompts.consultancy_question_prompt(question=q, answers=job.answers,
                                                   extractive=agent_article(q) is not None,
                                                   transcript=render_transcript(visible),
                                                   tool=tool_text(await judge_tool_blocks(ctx, job), job.answer_order))
        raw = (await ctx.generate("judge", user_message(ctx, "judge", q, text), tag=f"round{round_no}/question") or [""])[0]
        extra = {"kind": "question"} | ({"format": {"empty_output": True}} if not raw.strip() else {})
        return Turn(round_no, "judge", JUDGE, raw, raw.strip(), None, extra)

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        q = job.question
        extractive = agent_article(q) is not None
        transcript = render_transcript(turns)
        examples = judge_examples(ctx, q)
        tool = await judge_tool_blocks(ctx, job)

        def prompt_for(order: str):
            return user_message(ctx, "judge", q, prompts.consultancy_judge_prompt(
                question=q, answers=q.answers(order), extractive=extractive,
                transcript=transcript, mode=ctx.options.judge_mode, examples=examples, tool=tool_text(tool, order)))

        return await judge_decide(ctx, job, prompt_for, tool=tool)
