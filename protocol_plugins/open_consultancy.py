"""Open consultancy (§3.2.3): of the two assigned consultancy runs of a question, the one whose
consultant defends the agent model's own direct-QA answer. Re-uses the assigned run's cached calls."""

from __future__ import annotations

from oversight_bench.api import CONSULTANT, Job
from protocol_plugins.common import OpenRoleProtocol
from protocol_plugins.consultancy import Consultancy


class OpenConsultancy(OpenRoleProtocol):
    name = "open_consultancy"
    display_order = 40
    description = "Consultancy where the consultant defends its own direct-QA answer (filter of assigned runs)."
    rejudgeable = False
    base = Consultancy()

    def sub_job(self, job: Job, choice: int) -> Job:
        assignment = "correct" if choice == job.correct_index else "incorrect"
        return Job(self.base.name, job.question, job.answer_order, assignment)

    def protagonist(self, choice: int) -> str:
        return CONSULTANT
