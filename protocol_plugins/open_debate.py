"""Open debate (§3.2.3): the assigned debate of a question, with the debater who defends the agent
model's own direct-QA answer as protagonist. The debate does not depend on the judge and the agent's
answer is stored as the first turn, so open debates can be re-judged."""

from __future__ import annotations

from oversight_bench.api import Job
from protocol_plugins.common import OpenRoleProtocol
from protocol_plugins.debate import DEBATERS, Debate


class OpenDebate(OpenRoleProtocol):
    name = "open_debate"
    description = "Debate whose protagonist is the debater defending the agent's own direct-QA answer."
    base = Debate()
    Options = Debate.Options  # its transcripts are the assigned debate's
    has_debaters = True
    display_order = 60

    def sub_job(self, job: Job, choice: int) -> Job:
        return Job(self.base.name, job.question, job.answer_order)

    def protagonist(self, choice: int) -> str:
        return next(name for name, idx in DEBATERS.items() if idx == choice)
