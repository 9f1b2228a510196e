"""PrOntoQA (Saparov & He 2023): logical reasoning over a small ontology, made binary as the paper did.

Both options are a reasoning trace ending in a verdict. The correct one is the dataset's own
proof; the wrong one negates statements of it ("is" <-> "is not", paper Appendix F.2): the
conclusion and the rule that produced it, so the wrong trace misquotes one premise and reaches the
opposite verdict. Reads the Logic-LLM and llm-reasoners copies; with no data directory the
generator (`prontoqa_gen`) makes the same kind of questions, since PrOntoQA is itself generated.
"""

from __future__ import annotations

import re
from collections import Counter

from oversight_bench.api import BenchError
from task_configs.loaders.common import LoadContext, Records, read_rows

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


def _from_logic_llm(r: dict, negation: str = "proof_step") -> dict | str:
    statement = r.get("question", "").split("?", 1)[-1].strip()
    return make_row(f"logicllm/{r.get('id')}", r.get("context", ""), statement, r.get("explanation") or [],
                    r.get("answer") == "A", {"prontoqa_source": "logic-llm (fictional ontology)"}, negation)


def _from_reasoners(r: dict, negation: str = "proof_step") -> dict | str:
    t = r.get("test_example") or {}
    statement = t.get("query", "").split(":", 1)[-1].strip()
    return make_row(f"reasoners/{r.get('_key')}", t.get("question", ""), statement, t.get("chain_of_thought") or [],
                    t.get("answer") == "True", {"prontoqa_source": "llm-reasoners (real-world ontology)"}, negation)


def load(cfg, ctx: LoadContext) -> Records:
    negation = cfg.options.get("negation", "proof_step")
    if negation not in NEGATIONS:
        raise BenchError(f"task {cfg.name}: options.negation must be one of {', '.join(NEGATIONS)}, not {negation!r}")
    if ctx.source == "generator":
        from task_configs.loaders.prontoqa_gen import generate_rows

        gen = cfg.source.generator or {}
        hops, seed = tuple(gen.get("hops", (3, 5))), int(gen.get("seed", 0))
        rows = generate_rows(int(gen.get("count", 500)), hops, seed, negation)
        return Records(rows, notes=["PrOntoQA questions generated (no data directory)"],
                       facts={"hops": "-".join(map(str, hops)), "seed": seed})
    rows, skipped, facts = [], Counter(), {"logic_llm": 0, "reasoners": 0}  # rows per copy, for `substitution`
    for path in ctx.files(cfg.source.local.files, cfg.source.local.exclude):
        file_rows, bad = read_rows(path, "json")
        skipped["malformed_row"] += bad
        for r in file_rows:
            out = _from_reasoners(r, negation) if "test_example" in r else _from_logic_llm(r, negation)
            if isinstance(out, str):
                skipped[out] += 1
            else:
                rows.append(out)
                facts["reasoners" if "test_example" in r else "logic_llm"] += 1
    return Records(rows, +skipped, facts=facts)
