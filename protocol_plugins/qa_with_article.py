"""QA with article (§3.2.1): the judge reads the article itself, the ceiling for extractive tasks."""

from __future__ import annotations

from oversight_bench.api import BenchError, Context, Decision, Job, Protocol, Turn, judge_decide, judge_examples
from protocol_plugins.common import judge_tool_blocks, qa_messages, tool_text


class QAWithArticle(Protocol):
    name = "qa_with_article"
    description = "Judge answers alone with the article in <article> tags (extractive tasks only)."
    needs_article = True
    uses_agent = False
    baseline = True
    display_order = 20
    in_default_run = True

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        return []

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        article = job.question.article
        if not article:
            raise BenchError(f"qa_with_article needs an article, but {job.question.task}/{job.question.id} has none")
        examples = judge_examples(ctx, job.question)
        tool = await judge_tool_blocks(ctx, job)
        return await judge_decide(ctx, job, lambda order: qa_messages(
            ctx, "judge", job, order, article=article, mode=ctx.options.judge_mode, examples=examples,
            tool=tool_text(tool, order)), tool=tool)
