# Area 3 (imports): two NYU rooms of one question; the second room's own copy of the story is forged, and its Quote span points at the forged words: unverified
from imports import *
t = tmpdir("i03")
FORGED = "The captain confessed to sinking the ship"
r1, m1 = nyu_room("room1")
r2, m2 = nyu_room("room2", contents=FORGED.split(" ") + ["."], quote_span=(0, 7))
write_nyu(t / "nyu", [(r1, m1), (r2, m2)])
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
if p.returncode: error("import failed: " + last_line(err_of(p)))
if any("confessed" in q for q in verified_quotes(t / "run")):
    broke("a quote of a room's forged story copy was stored verified against the question's article")
held("quote of the forged copy unverified")
