"""QA without article (§3.2.1): the judge alone with the question and the two answers."""

from __future__ import annotations

from oversight_bench.api import Context, Decision, Job, Protocol, Turn, parse_answer
from protocol_plugins.common import judge_decide, judge_examples, judge_tool_blocks, qa_messages, tool_text


class QAWithoutArticle(Protocol):
    name = "qa_without_article"
    description = "Judge answers alone from the question and two answers (no article)."
    uses_agent = False
    baseline = True
    display_order = 10
    in_default_run = True

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        return []

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        examples = judge_examples(ctx, job.question)
        tool = await judge_tool_blocks(ctx, job)

        def prompt_for(order: str):
            return qa_messages(ctx, "judge", job, order, article=None, mode=ctx.options.judge_mode, examples=examples,
                               tool=tool_text(tool, order))

        decision = await judge_decide(ctx, job, prompt_for, tool=tool)
        if ctx.options.qa_samples:
            # Extra sampled answers (temperature 1) for the compute-matched majority-vote baseline,
            # which gives the judge as many calls as a debate spends.
            texts = await ctx.generate("judge", prompt_for(job.answer_order), n=ctx.options.qa_samples,
                                       temperature=1.0, tag="judge/samples")
            decision.extra["samples"] = [parse_answer(t) for t in texts]
        return decision
