"""Assigned-role debate (§3.2.2): Alice defends answer 1, Bob answer 2, for `rounds` rounds.

Simultaneous turns (default): both debaters see only the previous rounds. Sequential: Bob also sees
Alice's argument of the current round. Only processed text (the argument alone, cut to the word
limit only with `truncate_words`, passages verified) reaches the opponent and the judge, who reads
the whole transcript and asks nothing, so stored debates can be re-judged. An imported interactive
debate (Michael et al. 2023's live judges asked questions between rounds) is re-judged as its
judge saw it: the live judge's turns stay in the transcript, labelled as the source's judge
("Original judge (after round N)"), and the prompt says whose they are (`prompts.live_judge_note`). With best-of-N, the
debater model picks among its samples with the H.7 scorer prompt (`prompts.best_of_n_prompt`).
"""

from __future__ import annotations

import asyncio
from typing import Literal

from oversight_bench.api import (JUDGE, SOURCE_DEBATERS, CommonOptions, Context, Decision, Job, Protocol, Turn,
                                 agent_article, agent_turn, judge_decide, judge_examples, option, relabel, untag_passages,
                                 user_message)
from protocol_plugins import prompts
from protocol_plugins.common import judge_tool_blocks, render_transcript, tool_text

DEBATERS = {"Alice": 1, "Bob": 2}
# an imported room keeps its debaters' names (`SOURCE_DEBATERS`): they refer to each other by them, so
# the judge is told of them rather than of Alice and Bob


def debater_names(turns: list[Turn]) -> dict[str, int]:
    """Speaker -> the displayed answer it defends, as the transcript names them (the protocol's
    Alice and Bob, or an imported room's own names), in answer order; Alice and Bob before any turn."""
    named = {t.speaker: t.defends for t in turns if t.role == "debater" and t.defends in (1, 2)}
    return dict(sorted(named.items(), key=lambda kv: kv[1])) or dict(DEBATERS)


def judge_transcript(turns: list[Turn]) -> list[str]:
    """The transcript a debate judge reads: the debaters' turns, and an imported room's live judge's
    questions and remarks where they were made, as "Original judge (after round N)" ("before round
    1" for one made before any speech). A debate this protocol plays has no judge turns."""
    out: list[str] = []
    for t in turns:
        if t.role == "judge":
            when = f"after round {t.round}" if t.round else "before round 1"
            out.append(f"{prompts.SOURCE_JUDGE} ({when}):\n{t.shown}")
        elif t.role == "debater":
            out += render_transcript([t])
    return out


def opponent_of(name: str) -> str:
    return "Bob" if name == "Alice" else "Alice"


class DebateOptions(CommonOptions):
    """Debate's own option (besides the common ones): whether the debaters speak at once."""

    turn_style: Literal["simultaneous", "sequential"] = option("simultaneous", "simultaneous", "turn style {v} (paper: {p})",
                                                               description="debaters speak at once (paper) or in turn")


class Debate(Protocol):
    name = "debate"
    Options = DebateOptions
    description = "Two debaters (Alice: answer 1, Bob: answer 2) argue; the judge reads the transcript."
    speaker_slots = {name: side - 1 for name, side in DEBATERS.items()}  # cross-play: Alice is debater 0
    # a live judge's remarks between rounds (imported human-judged rooms): shown to a re-judge as the source's judge
    speakers = (*DEBATERS, *SOURCE_DEBATERS, JUDGE)
    has_debaters = True
    open_form = "open_debate"
    display_order = 50
    in_default_run = True
    compared_with = ("consultancy", "qa_without_article")  # the paper's two headline comparisons
    #: how the judge sees the debaters' quotes: "marked" by the checker (`<v_passage>`/`<u_passage>`,
    #: the paper's quote system) or "untagged" (`debate_unverified`: as the debaters wrote them)
    quotes = "marked"

    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        turns: list[Turn] = []
        for r in range(1, ctx.options.rounds + 1):
            if ctx.options.turn_style == "sequential":
                alice = await self.debater_turn(ctx, job, "Alice", r, turns)
                bob = await self.debater_turn(ctx, job, "Bob", r, [*turns, alice])
            else:
                alice, bob = await asyncio.gather(self.debater_turn(ctx, job, "Alice", r, turns),
                                                  self.debater_turn(ctx, job, "Bob", r, turns))
            turns += [alice, bob]
        return turns

    async def debater_turn(self, ctx: Context, job: Job, name: str, round_no: int, visible: list[Turn]) -> Turn:
        """One debater's turn, written having seen only `visible`."""
        q, defends = job.question, DEBATERS[name]
        article = agent_article(q)
        transcript = render_transcript(visible)
        text = prompts.debater_prompt(name=name, opponent=opponent_of(name), question=q, answers=job.answers,
                                      defends=defends, article=article, round_no=round_no,
                                      word_limit=ctx.options.word_limit, transcript=transcript)

        def pick_prompt(candidates: list[str]):
            return user_message(ctx, "agent", q, prompts.best_of_n_prompt(
                name=name, question=q, answers=job.answers, sides=DEBATERS, extractive=article is not None,
                transcript=transcript, candidates=candidates))

        return await agent_turn(ctx, job, messages=user_message(ctx, "agent", q, text), round_no=round_no,
                                role="debater", speaker=name, defends=defends, tag=f"round{round_no}/{name}",
                                pick_prompt=pick_prompt)

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        q = job.question
        extractive = agent_article(q) is not None
        transcript = judge_transcript(turns)
        live_judge = any(t.role == "judge" for t in turns)
        if self.quotes == "untagged":
            transcript = [untag_passages(entry) for entry in transcript]
        examples = judge_examples(ctx, q)
        names = debater_names(turns)  # the judge is told of exactly the speakers its transcript shows
        tool = await judge_tool_blocks(ctx, job)

        def prompt_for(order: str):
            sides = {name: relabel(idx, job, order) for name, idx in names.items()}
            return user_message(ctx, "judge", q, prompts.debate_judge_prompt(
                question=q, answers=q.answers(order), sides=sides, extractive=extractive, transcript=transcript,
                mode=ctx.options.judge_mode, examples=examples, quotes=self.quotes, tool=tool_text(tool, order),
                live_judge=live_judge))

        return await judge_decide(ctx, job, prompt_for, tool=tool)
