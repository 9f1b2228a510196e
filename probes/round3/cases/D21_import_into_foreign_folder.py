# Area 1: `import llm-debate CSV --output FOLDER` where FOLDER holds a user's files: refused, kept.
import csv, json
from probe import *
t = tmpdir("d21"); out = t / "out"; out.mkdir(); (out / "notes.txt").write_text("mine")
tr = {"question": "Q?", "answers": {"correct": "a", "incorrect": "b"}, "names": {"correct": "Debater A", "incorrect": "Debater B"},
      "rollout_type": "quality_sim", "rounds": [{"correct": "<argument>yes</argument>", "incorrect": "<argument>no</argument>"}]}
with open(t / "d.csv", "w", newline="") as f:
    w = csv.writer(f); w.writerow(["id", "question", "story", "transcript", "answer"])
    w.writerow(["1", "Q?", "The story.", json.dumps(tr), "Answer: A"])
before = snapshot(out)
p = ob(["import", "llm-debate", t / "d.csv", "--output", out])
if snapshot(out) != before:
    broke("the folder changed: " + diff(before, snapshot(out)))
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
