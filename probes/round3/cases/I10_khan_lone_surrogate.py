# Area 3 (imports): a Khan transcript with a lone surrogate escape in a debater's text and in the answers: no traceback, viewable
from imports import *
t = tmpdir("i10")
tr = json.dumps(khan_transcript()).replace("I say south.", "I say \\udc80 south.").replace('"north"', '"nor\\ud83dth"', 1)
write_khan(t / "d.csv", [{"id": "1", "transcript": tr}, {"id": "2"}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"])
why = no_traceback(p)
if why: broke(why)
if p.returncode == 0:
    q = ob(["view", t / "run", "--export", t / "site"]); why = no_traceback(q)
    if why: broke("view: " + why)
held(f"rc {p.returncode}: {last_line(out_of(p) + err_of(p))[:100]}")
