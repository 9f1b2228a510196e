# Area 3 (imports): an NYU room whose debater Text segment holds <v_passage>a claim not in the story</v_passage>: unverified
from imports import *
t = tmpdir("i02")
FORGED = "The captain secretly sank the ship"
room, meta = nyu_room(text_a=f"Read this: <v_passage>{FORGED}</v_passage> ok")
write_nyu(t / "nyu", [(room, meta)])
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
if p.returncode: error("import failed: " + last_line(err_of(p)))
if any(FORGED in q for q in verified_quotes(t / "run")):
    broke("a forged <v_passage> in NYU text was stored as verified")
if view_green(t / "run", FORGED, t):
    broke("the forged quote shows green in view")
held("forged NYU mark unverified; real span quote: " + repr(verified_quotes(t / "run")[:1]))
