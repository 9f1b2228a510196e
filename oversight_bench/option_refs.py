"""Which answer choices refer to the other choices, so a binary question must not keep them.

A multiple-choice question becomes binary by keeping the correct choice and one other (the paper's
conversion). A choice such as "All of the above", "both A and B" or "B and C only" then points at
choices the judge never sees: kept as the correct answer, the question has no readable answer;
kept as the wrong one, it is a free give-away. `refers_to_other_options` is the rule that finds
them (`binary.drop_references` in a task file turns it on; `yaml_task.convert` applies it):

* the whole choice names the others as a group: "all/none/both/neither/either/any of the
  above/these/those/options/choices/answers" ("None of these choices is correct", "All the above",
  "All choices are false", "both of the above");
* "... of the above" after all/none/both/neither/any, anywhere in the choice;
* letters of choices combined: "both A and B", "neither a nor b", "Both (a) and (b).", "both A & C";
  a choice that is only letters ("A and B", "B and C only", "(A) and (C)", "A, B and C", "(B) (C)
  and (D).", "a and b");
* a choice named by its letter: "option B", "answers A and C" (capital letters only: "answer a
  question" is not one).

Left alone on purpose: statements of the question named by numerals ("I and II only": they are in
the question the judge reads), and letters that name things of the question ("firms A and B are
substitutes", "Country A and B have identical living standards").
"""

from __future__ import annotations

import re

_GROUP = r"(?:above|below|these|those|options?|choices?|answers?|alternatives?)"
_WHOLE_GROUP = re.compile(rf"^\s*(?:all|none|both|neither|either|any)\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?{_GROUP}\b", re.I)
_OF_ABOVE = re.compile(r"\b(?:all|none|both|neither|any)\s+(?:of\s+)?(?:the\s+)?above\b", re.I)
_L = r"\(?\b[A-Fa-f]\b\)?"  # a letter standing alone ("Core" holds none)
_COMBINED = re.compile(rf"\b(?:both|neither|either)\s+{_L}\s*(?:and|nor|or|&)\s*{_L}(?![\w'])", re.I)
_ONLY_LETTERS = re.compile(rf"^\s*{_L}(?:\s*(?:,|and|or|&)?\s*{_L})*\s*(?:,|and|or|&)\s*{_L}\s*"
                           rf"(?:only|are(?:\s+both)?\s+(?:correct|true|right))?\s*\.?\s*$", re.I)
_NAMED = re.compile(r"\b(?i:options?|choices?|answers?)\s+\(?[A-F]\)?(?![\w'])")


def refers_to_other_options(text: str | None) -> bool:
    """Whether an answer choice refers to other choices (see the module's rule)."""
    if not text:
        return False
    return any(p.search(text) for p in (_WHOLE_GROUP, _OF_ABOVE, _COMBINED, _ONLY_LETTERS, _NAMED))
