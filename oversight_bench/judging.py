"""The judge's decision as the paper takes it, for any protocol (public: `oversight_bench.api`).

The protocol writes the judge's prompt for a displayed answer order (`prompt_for(order)`); this
module asks the judge in the run's `judge_mode` and reads the answer:
    predict: the judge writes "Answer: N" (the paper's; probabilities recorded where the backend has them),
    cot: it reasons first, then answers,
    probs: nothing generated, the more probable answer token after "Answer: " (needs logprobs);
and where the judge is the position-debiased one (`Context.judge_debias`), both orders are asked
and each answer's probability averaged across them.

The `Decision` record: `raw` (what the judge wrote), `answer` (1, 2, or None: invalid, never
guessed), `correct`, `probs` ([P(1), P(2)] in the job's order, where known) and `extra`
(`answer_from: probs`, `debiased` with both `orders`, `tool_output` where a judge tool ran).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from oversight_bench.errors import BenchError
from oversight_bench.model_text import parse_answer
from oversight_bench.models import Message
from oversight_bench.protocol import Context, Decision, Job
from oversight_bench.questions import Question, correct_index, other_order

#: the judge's prompt for the answers displayed in an order (`correct_first`/`correct_second`)
PromptFor = Callable[[str], list[Message]]


def relabel(index: int, job: Job, order: str) -> int:
    """The number that answer `index` (as displayed in `job`) gets when displayed in `order`."""
    return index if order == job.answer_order else 3 - index


def is_correct(answer: int | None, job: Job) -> bool | None:
    return None if answer is None else answer == job.correct_index


def judge_examples(ctx: Context, question: Question) -> list[tuple[Question, tuple[str, str], int]]:
    """The run's few-shot examples (`few_shot` of the options) as (question, displayed answers, correct number)."""
    k = ctx.options.few_shot
    if not k:
        return []
    return [(q, q.answers(order), correct_index(order)) for q, order in ctx.few_shot_examples(question, k)]


async def judge_decide(ctx: Context, job: Job, prompt_for: PromptFor, tag: str = "judge", tool: Any = None) -> Decision:
    """The judge's verdict on the prompt `prompt_for(job.answer_order)` (and the other order where the
    judge is debiased). `tool`: the judge tool's output the prompts show (an `api.ToolOutput`, or an
    object holding one as `.output`), recorded with the decision (`extra.tool_output`, job's order).

    Probabilities are asked for in predict mode only: after a chain of thought, P(next token after
    "Answer: ") on the bare prompt would not be the probability of the reasoned answer.
    """
    decision = await _decide(ctx, job, prompt_for, tag)
    if tool is not None:
        decision.extra["tool_output"] = getattr(tool, "output", tool).record()
    return decision


async def _judge_once(ctx: Context, messages: list[Message], tag: str, with_probs: bool) -> tuple[str, list[float] | None]:
    if ctx.options.judge_mode == "probs":  # the answer is read from the probabilities: nothing to generate
        return "", await ctx.choice_probs("judge", messages, tag=f"{tag}/probs")
    # A predict-mode verdict is only "Answer: N": a short budget keeps rambling weak judges cheap.
    max_tokens = ctx.options.predict_max_tokens if ctx.options.judge_mode == "predict" else ctx.options.judge_max_tokens
    raw = (await ctx.generate("judge", messages, tag=tag, max_tokens=max_tokens) or [""])[0]
    probs = await ctx.choice_probs("judge", messages, tag=f"{tag}/probs") if with_probs else None
    return raw, probs


async def _decide(ctx: Context, job: Job, prompt_for: PromptFor, tag: str) -> Decision:
    if ctx.judge_debias:
        return await _debiased_decision(ctx, job, prompt_for, tag)
    raw, probs = await _judge_once(ctx, prompt_for(job.answer_order), tag, ctx.options.judge_mode == "predict")
    if ctx.options.judge_mode == "probs":
        answer = _more_probable(probs)
        return Decision(raw, answer, is_correct(answer, job), list(probs) if probs else None, extra={"answer_from": "probs"})
    answer = parse_answer(raw)
    return Decision(raw, answer, is_correct(answer, job), list(probs) if probs else None)


def _more_probable(probs: list[float] | None) -> int | None:
    """Answer 1 or 2, whichever is more probable; an exact tie is invalid (never guessed)."""
    if not probs or probs[0] == probs[1]:
        return None
    return 1 if probs[0] > probs[1] else 2


async def _debiased_decision(ctx: Context, job: Job, prompt_for: PromptFor, tag: str) -> Decision:
    """Judge the transcript in both displayed orders and average each option's probability across
    them, so a preference for a position cancels out. `probs` holds the averages numbered as in the
    job's order; an exact tie is invalid (never guessed). The job's own order keeps the plain tag, so
    its call is the same request as an undebiased judge's."""
    if ctx.options.judge_mode == "cot":
        raise BenchError("the position-debiased judge averages answer probabilities, which needs judge_mode predict or probs, not cot")
    orders = (job.answer_order, other_order(job.answer_order))
    results = await asyncio.gather(*(
        _judge_once(ctx, prompt_for(order), tag if order == job.answer_order else f"{tag}/swapped", True) for order in orders
    ))
    records = []
    for order, (raw, probs) in zip(orders, results):
        if probs is None:
            raise BenchError("the position-debiased judge needs answer probabilities, but the judge backend gives none; "
                             "use a backend with logprobs or drop debias")
        records.append({"answer_order": order, "raw": raw, "answer": parse_answer(raw), "probs": list(probs)})
    avg = [sum(r["probs"][relabel(i, job, r["answer_order"]) - 1] for r in records) / 2 for i in (1, 2)]
    answer = _more_probable(avg)
    return Decision(records[0]["raw"], answer, is_correct(answer, job), avg, extra={"debiased": True, "orders": records})
