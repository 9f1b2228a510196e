# Area 3 (imports): an NYU room whose final belief is [NaN, 0.5] (JSON NaN literal): refused in one line, not a verdict
from imports import *
t = tmpdir("i11")
room, meta = nyu_room()
line = json.dumps(meta).replace("[0.7, 0.3]", "[NaN, 0.5]").encode()
write_nyu(t / "nyu", [(room, meta)], raw_meta_lines=[line])
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
why = one_line_error(p)
if why and p.returncode == 0:
    broke("a NaN final belief was imported as a verdict")
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
