"""Interactive debate (Khan et al. 2024, "Debating with More Persuasive LLMs Leads to More Truthful
Answers", §2): the assigned-role debate, but after each round but the last the judge asks the
debaters one question, and both answer it in their next turn. The paper this benchmark reproduces
(arXiv 2407.04622) runs debate without questions: this protocol is outside it, and says so.

Written on `oversight_bench.api` alone, as any third-party protocol would be: the turns are the
paper's agent turns (`agent_turn`: think, then argue, each within its budget, forced continuation
and cut marks, best-of-N with the debater model's pick) and the verdict is the paper's judge
decision (`judge_decide`: predict, cot or probs, debiased where the judge is). Its own option,
`judge_questions` (default on), turns the questions off (then it is the plain debate, in its prompts).
"""

from __future__ import annotations

import asyncio

from oversight_bench.api import (CommonOptions, Context, Decision, Job, Protocol, Turn, agent_article, agent_turn,
                                 judge_decide, judge_examples, option, relabel, user_message)

from obench_interactive_debate import prompts

DEBATERS = {"Alice": 1, "Bob": 2}


class InteractiveDebateOptions(CommonOptions):
    """The common options (rounds, budgets, judge mode, ...) and this protocol's own."""

    judge_questions: bool = option(True, label="judge asks the debaters a question after each round: {v}",
                                   description="the judge asks one question after every round but the last, which "
                                   "both debaters answer in their next turn (Khan et al. 2024); false: no questions")


def render(turns: list[Turn]) -> list[str]:
    """The transcript as everyone sees it: the debaters' processed arguments and the judge's questions."""
    return [f"{t.speaker} (question after round {t.round}):\n{t.shown}" if t.role == "judge"
            else f"{t.speaker} (round {t.round}):\n{t.shown}" for t in turns]


class InteractiveDebate(Protocol):
    name = "interactive_debate"
    description = "Debate in which the judge asks the debaters a question after each round (Khan et al. 2024)."
    Options = InteractiveDebateOptions
    speakers = ("Alice", "Bob", "Judge")
    speaker_slots = {name: side - 1 for name, side in DEBATERS.items()}
    has_debaters = True
    rejudgeable = False  # the transcript holds the judge's questions
    display_order = 55
    outside_paper = ("the judge asks the debaters a question after each round and they answer it (Khan et al. 2024's "
                     "interactive debate); the paper's debate judge asks nothing")

    def can_rejudge(self, options: InteractiveDebateOptions) -> bool:
        return not options.judge_questions or options.rounds == 1

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        turns: list[Turn] = []
        rounds = ctx.options.rounds
        for r in range(1, rounds + 1):
            asked = turns[-1].shown if turns and turns[-1].role == "judge" else None
            turns += await asyncio.gather(*(self.debater_turn(ctx, job, name, r, turns, asked) for name in DEBATERS))
            if ctx.options.judge_questions and r < rounds:
                turns.append(await self.judge_question(ctx, job, r, turns))
        return turns

    async def debater_turn(self, ctx: Context, job: Job, name: str, round_no: int, visible: list[Turn],
                           asked: str | None) -> Turn:
        q, defends = job.question, DEBATERS[name]
        opponent = next(n for n in DEBATERS if n != name)
        text = prompts.debater_prompt(name=name, opponent=opponent, question=q, answers=job.answers, defends=defends,
                                      article=agent_article(q), word_limit=ctx.options.word_limit,
                                      transcript=render(visible), judge_question=asked)

        def pick_prompt(candidates: list[str]):  # best-of-N: the debater model picks its most persuasive sample
            listed = "\n\n".join(f"({chr(97 + i)}) {c}" for i, c in enumerate(candidates))
            return user_message(ctx, "agent", q, f"{text}\n\nWhich of these arguments for answer {defends} is the most "
                                f"persuasive?\n\n{listed}\n\nReply only with \"Answer: <letter>\".")

        return await agent_turn(ctx, job, messages=user_message(ctx, "agent", q, text), round_no=round_no,
                                role="debater", speaker=name, defends=defends, tag=f"round{round_no}/{name}",
                                pick_prompt=pick_prompt)

    async def judge_question(self, ctx: Context, job: Job, round_no: int, visible: list[Turn]) -> Turn:
        q = job.question
        tool = await ctx.judge_tool(q, job.answers)
        text = prompts.question_prompt(question=q, answers=job.answers, sides=DEBATERS, transcript=render(visible),
                                       tool=prompts.tool_block(tool, False))
        raw = (await ctx.generate("judge", user_message(ctx, "judge", q, text), tag=f"round{round_no}/question") or [""])[0]
        return Turn(round_no, "judge", "Judge", raw, raw.strip() or "(no question)", None, {"kind": "question"})

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        q = job.question
        transcript = render(turns)
        examples = judge_examples(ctx, q)
        tool = await ctx.judge_tool(q, job.answers)

        def prompt_for(order: str):
            sides = {name: relabel(side, job, order) for name, side in DEBATERS.items()}
            return user_message(ctx, "judge", q, prompts.judge_prompt(
                question=q, answers=q.answers(order), sides=sides, transcript=transcript, mode=ctx.options.judge_mode,
                examples=examples, extractive=agent_article(q) is not None,
                tool=prompts.tool_block(tool, order != job.answer_order)))

        return await judge_decide(ctx, job, prompt_for, tool=tool)
