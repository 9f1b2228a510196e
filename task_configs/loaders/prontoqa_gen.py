"""A PrOntoQA-style generator: fictional ontologies and k-hop proofs, seeded.

PrOntoQA is itself generated this way (Saparov & He 2023): a chain of "every A is a B" rules,
a property on the last concept, a distractor concept with the opposite property, and one fact
"Max is an A". The proof walks the chain (one rule per hop) and applies the property rule. The
context sentences are shuffled so the order gives nothing away.
"""

from __future__ import annotations

import random

from task_configs.loaders.prontoqa_rows import make_row

CONCEPTS = ["wumpus", "yumpus", "zumpus", "dumpus", "rompus", "numpus", "tumpus", "vumpus", "impus", "jompus",
            "gorpus", "shumpus", "lempus", "sterpus", "grimpus", "lorpus", "brimpus", "felpus", "kerpus", "quimpus"]
ADJECTIVES = ["sour", "small", "red", "wooden", "opaque", "shy", "aggressive", "earthy", "bright", "fruity",
              "happy", "hot", "liquid", "metallic", "nervous", "orange", "sweet", "transparent", "luminous", "feisty"]
NAMES = ["Max", "Alex", "Sam", "Polly", "Rex", "Fae", "Wren", "Stella", "Sally", "Jo"]


def article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def plural(noun: str) -> str:
    return noun + "es"


def rule_isa(rng: random.Random, a: str, b: str) -> str:
    form = rng.randrange(3)
    if form == 0:
        return f"Every {a} is {article(b)}."
    if form == 1:
        return f"Each {a} is {article(b)}."
    return f"{plural(a).capitalize()} are {plural(b)}."


def rule_prop(rng: random.Random, a: str, adj: str, positive: bool) -> str:
    neg = "" if positive else " not"
    form = rng.randrange(3)
    if form == 0:
        return f"Every {a} is{neg} {adj}."
    if form == 1:
        return f"Each {a} is{neg} {adj}."
    return f"{plural(a).capitalize()} are{neg} {adj}."


def generate_example(rng: random.Random, hops: int) -> dict:
    """One question: context, statement, the proof, and whether the statement is true."""
    chain = rng.sample(CONCEPTS, hops + 1)  # hops-1 isa rules, plus a distractor concept
    concepts, distractor = chain[:hops], chain[hops]
    adjs = rng.sample(ADJECTIVES, hops)
    polarity = [rng.random() < 0.5 for _ in range(hops)]
    name = rng.choice(NAMES)
    isa = [rule_isa(rng, concepts[i], concepts[i + 1]) for i in range(hops - 1)]
    props = [rule_prop(rng, concepts[i], adjs[i], polarity[i]) for i in range(hops)]
    queried = adjs[-1]
    sentences = isa + props + [
        rule_prop(rng, distractor, queried, not polarity[-1]),  # the distractor: opposite property
        rule_isa(rng, distractor, concepts[rng.randrange(hops)]),
    ]
    rng.shuffle(sentences)
    context = " ".join(sentences + [f"{name} is {article(concepts[0])}."])
    trace = [f"{name} is {article(concepts[0])}."]
    for i in range(hops - 1):
        trace += [isa[i], f"{name} is {article(concepts[i + 1])}."]
    trace += [props[-1], f"{name} is{'' if polarity[-1] else ' not'} {queried}."]
    positive_statement = rng.random() < 0.5
    statement = f"{name} is{'' if positive_statement else ' not'} {queried}."
    return {"context": context, "statement": statement, "trace": trace,
            "truth": positive_statement == polarity[-1], "hops": hops}


def generate_rows(count: int, hops: tuple[int, ...] = (3, 5), seed: int = 0, negation: str = "proof_step") -> list[dict]:
    """`count` binary rows, hops spread evenly over the range, identical for the same seed."""
    rng = random.Random(f"prontoqa-gen:{seed}")
    lo, hi = min(hops), max(hops)
    rows = []
    for i in range(count):
        ex = generate_example(rng, lo + i % (hi - lo + 1))
        row = make_row(f"gen/{seed}/{i}", ex["context"], ex["statement"], ex["trace"], ex["truth"],
                       {"prontoqa_source": "generated"}, negation)
        if isinstance(row, dict):
            rows.append(row)
    return rows
