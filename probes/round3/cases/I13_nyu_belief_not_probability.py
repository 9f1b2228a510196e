# Area 3 (imports): an NYU room whose final belief is [-3, 4] (finite, but no probabilities): refused, not a verdict for answer 2
from imports import *
t = tmpdir("i13")
room, meta = nyu_room(belief=(-3, 4))
write_nyu(t / "nyu", [(room, meta)])
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
if p.returncode == 0:
    d = db(t / "run").execute("SELECT json_extract(data,'$.probs'), json_extract(data,'$.answer') FROM records WHERE kind='decision'").fetchall()
    broke(f"belief [-3, 4] imported as probs/answer {d[:1]}")
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
