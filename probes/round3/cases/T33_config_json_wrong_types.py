# Area 5 (stores): a run's config.json with wrong field types (tasks 5, options a string, judge a list, deviations a dict)
import json
from probe import *
from hostile_store import check
def py(c, run):
    d = json.loads((run / "config.json").read_text())
    d.update(tasks=5, options="x", judge=["a", 1], deviations={"a": 1}, protocols="debate")
    (run / "config.json").write_text(json.dumps(d))
check([], "t33", py=py)
