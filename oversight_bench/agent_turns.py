"""An agent's turn as the paper plays it, for any protocol (public: `oversight_bench.api`).

A turn thinks privately, then argues (H.1, H.2), each within its own budget (`thinking_max_tokens`,
`argument_max_tokens` of the protocol's options): a turn whose thinking spends its budget is
continued from "Argument:" (*forced*), so no turn reaches the judge without an argument; an argument
that spends its budget is *cut*. With best-of-N the agent samples N turns and the debater model picks
the most persuasive with the H.7 scorer prompt, which the protocol writes (`pick_prompt`).

The record a `Turn` carries in `extra` (what `view`, `report` and the quality columns read):
    budget: {thinking_tokens, argument_tokens, forced, cut, continued} of the kept sample
    best_of_n: {samples, pick_raw, picked, budgets[, pick_fallback]} where N > 1
    format: the notes of `turn_notes` (no argument header, over the word limit, ...), where any
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from oversight_bench.errors import BenchError
from oversight_bench.model_text import argues_at_line_start, parse_letter, process_turn, split_thinking, turn_notes
from oversight_bench.models import Completion, Message
from oversight_bench.protocol import Context, Job, Turn
from oversight_bench.questions import Question

#: where an agent's private thinking ends and its argument begins (H.1, H.2 output structure)
ARGUMENT_HEADER = "Argument:"
#: what ends the thinking: the header at the start of a line, plain or in common markdown, as
#: `model_text.split_thinking` reads it; "Argument:" merely mentioned inside a line does not
ARGUMENT_STOPS = [f"\n{mark}{ARGUMENT_HEADER}" for mark in ("", "**", "## ", "### ", "# ")] + ["\n**Argument**:"]
#: the second call's request where a backend cannot continue a begun reply (`Context.can_continue`)
ARGUMENT_ONLY = ("Your thinking above is private: nobody else will read it. Now write only your argument, the text "
                 "the judge will read, within {words} words, without repeating your thinking.")


def agent_article(question: Question) -> str | None:
    """The article agents read and passages are checked against: extractive tasks only, so on closed
    and multimodal tasks nobody gets passage instructions."""
    if question.task_type != "extractive":
        return None
    if not question.article:
        raise BenchError(f"question {question.task}/{question.id} is extractive but has no article")
    return question.article


def user_message(ctx: Context, role: str, question: Question, text: str) -> list[Message]:
    """The single user message of a call (the paper uses no system role); a multimodal question's
    images come first as image_url parts."""
    if not question.images:
        return [{"role": "user", "content": text}]
    if not ctx.supports_images(role):
        raise BenchError(f"question {question.task}/{question.id} shows images but the {role} model is text-only")
    parts: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": img.data_url()}} for img in question.images]
    return [{"role": "user", "content": parts + [{"type": "text", "text": text}]}]


async def agent_turn(ctx: Context, job: Job, *, messages: list[Message], round_no: int, role: str, speaker: str,
                     defends: int | None, tag: str, pick_prompt: Callable[[list[str]], list[Message]] | None = None) -> Turn:
    """One agent turn: N samples where best-of-N applies (`pick_prompt` given: it makes the H.7 scorer
    prompt from the N processed samples), each thinking then arguing within its budgets (`argue`).
    `content` keeps the raw output; `shown` (what everyone else sees) is the argument alone, passages
    checked against the article (extractive tasks), cut at the word limit only with `truncate_words`.
    `role` "consultant" or "debater" makes it an argument the quality columns count."""
    n = ctx.best_of_n(speaker) if pick_prompt is not None else 1
    samples = await argue(ctx, messages, n=n, tag=tag, speaker=speaker)
    texts = [text for text, _ in samples]
    article = agent_article(job.question)
    # The paper asks for the word limit and does not cut; `truncate_words` also cuts.
    truncate = ctx.options.truncate_words
    shown = [process_turn(t, article, ctx.options.word_limit if truncate else None) for t in texts]
    extra: dict[str, Any] = {}
    chosen = 0
    if len(texts) > 1 and pick_prompt is not None:
        chosen, extra["best_of_n"] = await pick_most_persuasive(ctx, pick_prompt(shown), texts, tag, speaker)
        extra["best_of_n"]["budgets"] = [budget for _, budget in samples]
    extra["budget"] = samples[chosen][1]
    notes = turn_notes(texts[chosen], ctx.options.word_limit, truncate)
    if notes:
        extra["format"] = notes
    return Turn(round_no, role, speaker, texts[chosen], shown[chosen], defends, extra)


def _begun(thinking: str, forced: bool) -> str:
    """The reply as it stands when the argument is to follow: a forced turn continues an argument it
    had already begun (a header the stops do not match, e.g. at the very start), else gets the
    header on a line of its own; an unforced one gets the header where the stop cut it (a line
    start; markdown around it is not kept) or, if it ended without one, on a new line."""
    if forced and argues_at_line_start(thinking):
        return thinking
    if forced:
        return thinking.rstrip() + "\n\n" + ARGUMENT_HEADER
    return thinking + ("\n" if thinking else "") + ARGUMENT_HEADER


def _spent(completion: Completion, budget: int) -> bool:
    """Whether a completion ended because its token budget ran out."""
    if completion.finish_reason is not None:
        return completion.finish_reason == "length"
    return completion.completion_tokens >= budget


async def argue(ctx: Context, messages: list[Message], *, n: int, tag: str, speaker: str) -> list[tuple[str, dict]]:
    """n agent outputs as (text, budget record). Thinking runs until the model starts a line with
    "Argument:" or spends `thinking_max_tokens`; either way the reply is then continued from "Argument:" with
    its own `argument_max_tokens` (a *forced* turn when the thinking budget ran out), so no turn
    reaches the judge without an argument because the model thought too long. The continuation is
    the same generation where the backend can continue a begun reply, else a second call that shows
    the model its thinking and asks for the argument only. An argument that spends its budget is
    *cut*. The record: thinking and argument tokens, forced, cut, and how the argument was made."""
    o = ctx.options
    thoughts = (await ctx.sample("agent", messages, n=n, tag=tag, speaker=speaker,
                                 max_tokens=o.thinking_max_tokens, stop=ARGUMENT_STOPS))[:n] or [Completion("")]

    async def finish(i: int, thought: Completion) -> tuple[str, dict]:
        forced = _spent(thought, o.thinking_max_tokens)
        budget = {"thinking_tokens": thought.completion_tokens, "argument_tokens": 0, "forced": forced, "cut": False}
        if not forced and argues_at_line_start(thought.text):  # the argument came in the same reply (a
            budget["continued"] = None                          # header form the stops do not match)
            return thought.text, budget
        head = _begun(thought.text, forced)
        sub = f"{tag}/argument" + (f"/{i}" if i else "")
        if ctx.can_continue("agent", speaker):
            arg = (await ctx.sample("agent", messages, tag=sub, speaker=speaker, max_tokens=o.argument_max_tokens,
                                    prefix=head, stop=["\nThinking:"]) or [Completion("")])[0]
            budget["continued"] = "same generation"
            text = head + arg.text
        else:
            ask = [*messages, {"role": "assistant", "content": thought.text.strip() or "(no thinking)"},
                   {"role": "user", "content": ARGUMENT_ONLY.format(words=o.word_limit)}]
            arg = (await ctx.sample("agent", ask, tag=sub, speaker=speaker, max_tokens=o.argument_max_tokens)
                   or [Completion("")])[0]
            written = split_thinking(arg.text)[1] or arg.text.strip()  # after its own "Argument:" if it wrote one
            budget["continued"] = "second call"
            text = head + " " + written
        budget.update(argument_tokens=arg.completion_tokens, cut=_spent(arg, o.argument_max_tokens))
        return text, budget

    return list(await asyncio.gather(*(finish(i, t) for i, t in enumerate(thoughts))))


async def pick_most_persuasive(ctx: Context, messages: list[Message], texts: list[str], tag: str,
                               speaker: str | None = None) -> tuple[int, dict]:
    """Ask the debater model which sample is most persuasive (H.7 scorer prompt, §4.1: the debater
    model picks), answered "Answer: <letter>". An unparseable pick falls back to the first sample and
    says so in the record. The pick is a judgement, so it uses the judge's sampling settings."""
    raw = (await ctx.generate("agent", messages, tag=f"bon_pick/{tag}", temperature=ctx.options.judge_temperature,
                              max_tokens=ctx.options.judge_max_tokens, speaker=speaker) or [""])[0]
    pick = parse_letter(raw, len(texts))
    info: dict[str, Any] = {"samples": texts, "pick_raw": raw, "picked": pick or 1}
    if pick is None:
        info["pick_fallback"] = True
    return (pick or 1) - 1, info
