"""Outside the paper (SPEC §6): two protocols that judge a debate's stored transcript again, with
judge calls only, to tell the effect of the quote checker from the effect of the debate.

- `verified_evidence`: the judge sees the question, both answers and only the passages the checker
  verified, grouped by the answer whose debater quoted them, and none of the arguments
  (`prompts.evidence_judge_prompt`, the H.4 judge adapted in our words).
- `debate_unverified`: the debate judge of H.4 with every quote shown as the debater wrote it, in
  plain `<passage>` tags, without the checker's `<v_passage>`/`<u_passage>` marks, and told that
  not told whether a quote matches the article (`prompts.untagged_quote_rules`).

Both are derived from `debate` (`Protocol.derived_from`): `oversight-bench judge --from RUN --judge
SPEC --as NAME` judges a stored debate run's transcripts as them, each decision keeping the debate's
question, answer order and variant, and naming the debate job it judged (`source_protocol`,
`source_job_key`), so `report` pairs them with the debate's decisions per question. Run fresh
(`run --protocols debate,verified_evidence,...`) they play the same debate (the same requests, so
cached calls within one run directory) and judge it their way. They need an article: verification
exists only on extractive tasks. The debaters argued knowing their quotes were checked (their
prompts describe the checker, and their arguments may say that a quote was verified); only the
judge's view changes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from oversight_bench.api import (BenchError, Context, Decision, Job, Turn, agent_article, judge_decide, judge_examples,
                                 relabel, user_message, verified_passages)
from protocol_plugins import prompts
from protocol_plugins.debate import Debate


def evidence_of(turns: list[Turn]) -> tuple[list[str], list[str]]:
    """The verified passages of a debate's turns, by the displayed answer (1, 2) whose debater quoted
    them, in the order first quoted; a passage a side quoted again is listed once for it."""
    found: tuple[list[str], list[str]] = ([], [])
    for t in turns:
        if t.role != "debater" or t.defends not in (1, 2):
            continue  # a live judge's remarks in an imported room are no evidence
        side = found[t.defends - 1]
        for passage in verified_passages(t.shown):
            if passage not in side:
                side.append(passage)
    return found


class DerivedFromDebate(Debate):
    """A debate's transcript, judged another way: not the paper's, never in a bare run, and not read
    by Elo or the open-role filter (its rooms are debate's, already counted there)."""

    derived_from = ("debate",)
    needs_article = True
    has_debaters = False
    open_form = None
    compared_with = ()
    in_default_run = False

    def describe_outcome(self, job: Job, turns: list[Turn], decision: Decision) -> dict[str, Any]:
        """The debate job this decision judged: in `judge --from --as`, the source run's (its folder is
        the run's `source`); in a fresh run, the same run's debate of this question, order and variant."""
        source = self.derived_from[0]
        return {"source_protocol": source, "source_job_key": dataclasses.replace(job, protocol=source).key}


class VerifiedEvidence(DerivedFromDebate):
    name = "verified_evidence"
    description = "The judge sees only the verified passages each debater quoted, grouped by answer; no arguments."
    outside_paper = ("the judge sees only the passages each debater quoted that the checker verified, grouped by the "
                     "answer they back, without the arguments (our adaptation of the H.4 judge prompt)")
    display_order = 52

    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        q = job.question
        if agent_article(q) is None:
            raise BenchError(f"verified_evidence needs an article (quotes are checked against it), but {q.task}/{q.id} has none")
        evidence = evidence_of(turns)
        examples = judge_examples(ctx, q)

        def prompt_for(order: str):
            # the passages of the answer shown as 1 in `order`, then of the one shown as 2
            first, second = sorted((1, 2), key=lambda idx: relabel(idx, job, order))
            return user_message(ctx, "judge", q, prompts.evidence_judge_prompt(
                question=q, answers=q.answers(order), evidence=(evidence[first - 1], evidence[second - 1]),
                mode=ctx.options.judge_mode, examples=examples))

        decision = await judge_decide(ctx, job, prompt_for)
        # what the judge saw, numbered as `answers` in the record (the job's order)
        return dataclasses.replace(decision, extra={**decision.extra, "evidence": [list(e) for e in evidence]})


class DebateUnverified(DerivedFromDebate):
    name = "debate_unverified"
    description = "A debate judged with its quotes untagged: no verified/unverified marks, no word on the check."
    outside_paper = ("the debate judge sees the debaters' quotes as they wrote them, without the checker's "
                     "verified/unverified marks, and is not told whether they match the article")
    display_order = 54
    quotes = "untagged"
