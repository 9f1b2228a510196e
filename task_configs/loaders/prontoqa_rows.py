"""A PrOntoQA row: the dataset's proof as the correct option and its negated copy as the wrong one
(paper Appendix F.2). Shared by the loader (`prontoqa`) and the generator (`prontoqa_gen`), so
neither imports the other's module back."""

from __future__ import annotations

import re

_COPULA = re.compile(r"\b(is|are)( not)?\b")
PROMPT = "Is the following statement true or false?"


def negate(sentence: str) -> str:
    """Flip the first copula: "X is Y." <-> "X is not Y.", "Xs are Y." <-> "Xs are not Y."."""
    return _COPULA.sub(lambda m: m.group(1) if m.group(2) else f"{m.group(1)} not", sentence, count=1)


#: how the wrong option is made (`options.negation` of the task). App. F.2 says "replacing boolean
#: statements by their negation"; which statements is not said. `proof_step` (default): the
#: conclusion and the rule that produced it. `every_statement`: every sentence of the trace (the
#: other reading; the wrong trace then also contradicts the question's given facts).
NEGATIONS = ("proof_step", "every_statement")


def wrong_trace(trace: list[str], negation: str = "proof_step") -> list[str]:
    """The correct proof with its conclusion and the last rule used negated (or every statement)."""
    if negation == "every_statement":
        return [negate(s) for s in trace]
    out = list(trace)
    out[-1] = negate(out[-1])
    if len(out) >= 2:
        out[-2] = negate(out[-2])
    return out


def option(trace: list[str], statement: str) -> str:
    verdict = "true" if trace[-1].strip() == statement.strip() else "false"
    return f"{' '.join(trace)} So the statement \"{statement}\" is {verdict}."


def make_row(ident: str, context: str, statement: str, trace: list[str], truth: bool, meta: dict,
             negation: str = "proof_step") -> dict | str:
    """A binary row, or the reason the proof does not fit the stated answer."""
    if not trace or not statement:
        return "missing_reasoning"
    concludes = trace[-1].strip() == statement.strip()
    if concludes != truth or (not concludes and trace[-1].strip() != negate(statement).strip()):
        return "trace_conclusion_mismatch"
    return {
        "id": ident, "question": f"{context.strip()}\n\n{PROMPT} {statement}",
        "correct": option(trace, statement), "incorrect": option(wrong_trace(trace, negation), statement),
        "_meta": {**meta, "answer": truth, "hops": (len(trace) - 1) // 2},
    }
