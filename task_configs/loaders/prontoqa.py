"""PrOntoQA (Saparov & He 2023): logical reasoning over a small ontology, made binary as the paper did.

Both options are a reasoning trace ending in a verdict. The correct one is the dataset's own
proof; the wrong one negates statements of it ("is" <-> "is not", paper Appendix F.2): the
conclusion and the rule that produced it, so the wrong trace misquotes one premise and reaches the
opposite verdict (`prontoqa_rows`). Reads the Logic-LLM and llm-reasoners copies; with no data directory the
generator (`prontoqa_gen`) makes the same kind of questions, since PrOntoQA is itself generated.
"""

from __future__ import annotations

from collections import Counter

from oversight_bench.api import BenchError
from task_configs.loaders.common import LoadContext, Records, read_rows
from task_configs.loaders.prontoqa_rows import NEGATIONS, make_row


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
