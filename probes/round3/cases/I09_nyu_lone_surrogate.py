# Area 3 (imports): an NYU room whose speech text holds a lone surrogate escape (\ud800), and metadata with one in a key: one-line error (or a stored replacement), no traceback
from imports import *
t = tmpdir("i09")
room, meta = nyu_room()
raw = json.dumps(room).replace("I argue A.", "I argue \\ud800 A.").encode()
write_nyu(t / "nyu", [(room, meta)], raw_rooms={"room1": raw})
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
why = no_traceback(p)
if why: broke("room: " + why)
if p.returncode == 0:
    q = ob(["view", t / "run", "--export", t / "site"]); why = no_traceback(q)
    if why: broke("view of the import: " + why)
m2 = json.dumps(meta)[:-1] + ', "\\udfff": 1}'
write_nyu(t / "nyu2", [(room, meta)], raw_meta_lines=[m2.encode()])
p = ob(["import", "nyu-debate", t / "nyu2", "--output", t / "run2"])
why = no_traceback(p)
broke("metadata: " + why) if why else held(f"rc {p.returncode}: {last_line(err_of(p))[:100]}")
