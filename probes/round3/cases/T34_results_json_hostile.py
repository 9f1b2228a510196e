# Area 5 (stores): a run's results.json and samples.jsonl replaced by hostile content (a JSON list; NaN; 30 MB of one line)
from probe import *
from hostile_store import check
def py(c, run):
    (run / "results.json").write_text('[1, NaN, {"cells": "x"}]')
    (run / "samples.jsonl").write_text("x" * (30 << 20))
check([], "t34", py=py)
