"""QA without article (§3.2.1): the judge alone with the question and the two answers."""

from __future__ import annotations

from oversight_bench.api import (CommonOptions, Context, Decision, Job, Protocol, Turn, judge_decide, judge_examples,
                                 option, parse_answer)
from protocol_plugins.common import judge_tool_blocks, qa_messages, tool_text


class QAOptions(CommonOptions):
    """QA without article's own option: extra sampled answers for the majority-vote baseline."""

    qa_samples: int = option(0, 0, "{v} extra sampled QA answers for a majority vote (paper: {p})", judge=True, ge=0, le=64,
                             description="extra sampled judge answers on QA without article, for the "
                             "compute-matched majority-vote baseline")


class QAWithoutArticle(Protocol):
    name = "qa_without_article"
    Options = QAOptions
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
