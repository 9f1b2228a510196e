"""QA without article (§3.2.1): the judge alone with the question and the two answers."""

from __future__ import annotations

from oversight_bench.protocol import Context, Decision, Job, Protocol, Turn
from protocol_plugins.common import judge_decide, judge_examples, qa_messages


class QAWithoutArticle(Protocol):
    name = "qa_without_article"
    description = "Judge answers alone from the question and two answers (no article)."
    uses_agent = False

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        return []

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        examples = judge_examples(ctx, job.question)
        return await judge_decide(ctx, job, lambda order: qa_messages(
            ctx, "judge", job, order, article=None, mode=ctx.options.judge_mode, examples=examples))
