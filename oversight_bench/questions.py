"""The unit of data: a binary-choice question, and what a task loader returns."""

from __future__ import annotations

import base64
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator


@dataclass(frozen=True, slots=True)
class Image:
    """An image shown with a multimodal question."""

    data: bytes
    mime: str = "image/png"

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode()}"


@dataclass(frozen=True, slots=True)  # slots: a run may hold 100k of them
class Question:
    """One binary question: the correct answer and one incorrect answer.

    `article` is set on extractive tasks (the judge does not see it in debate/consultancy);
    `images` on multimodal ones.
    """

    id: str
    task: str
    task_type: str  # "extractive" | "closed" | "multimodal"
    question: str
    correct: str
    incorrect: str
    article: str | None = None
    images: tuple[Image, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def answers(self, answer_order: str) -> tuple[str, str]:
        """The two answers as displayed: `correct_first` or `correct_second`."""
        if answer_order == "correct_first":
            return (self.correct, self.incorrect)
        if answer_order == "correct_second":
            return (self.incorrect, self.correct)
        raise ValueError(f"answer_order must be correct_first or correct_second, not {answer_order!r}")


#: the two displayed answer orders; every module takes them from here
ORDERS = ("correct_first", "correct_second")


def other_order(answer_order: str) -> str:
    return ORDERS[1] if answer_order == ORDERS[0] else ORDERS[0]


def correct_index(answer_order: str) -> int:
    """The 1-based displayed position of the correct answer."""
    return 1 if answer_order == "correct_first" else 2


@dataclass
class LoadResult:
    """Questions a task produced, plus the rows it had to skip and why (reported, never silent).

    `questions` is a list, or an iterator for a generated task too large to hold: a run then
    streams it (each question planned, stored and let go in turn), and `count`, when given, sizes
    the progress bar.
    """

    questions: list[Question] | Iterator[Question]
    skipped: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    count: int | None = None
    #: the data files the task read: name -> content hash (`sources.file_fingerprints`); part of
    #: a run's identity, so a resume never mixes in questions from other data
    files: dict[str, str] = field(default_factory=dict)
    #: how this task's data differs from the paper's (a substituted source or split, with counts):
    #: declared in the run's deviations, so a number is never read as measured on the paper's data
    deviations: list[str] = field(default_factory=list)
