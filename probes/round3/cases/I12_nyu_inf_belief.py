# Area 3 (imports): an NYU room whose final belief is [1e999, 0] (infinite) in the room's last JudgeFeedback (no finalJudgement): refused in one line
from imports import *
t = tmpdir("i12")
room, meta = nyu_room()
meta["status"]["Complete"]["result"]["judgingInfo"]["finalJudgement"] = None
raw = json.dumps(room).replace("[0.7, 0.3]", "[1e999, 0]").encode()
write_nyu(t / "nyu", [(room, meta)], raw_rooms={"room1": raw})
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
if p.returncode == 0:
    broke("an infinite final belief was imported as a verdict")
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
