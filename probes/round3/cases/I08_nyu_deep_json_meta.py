# Area 3 (imports): NYU metadata whose line nests 200,000 objects deep, and a room JSON 200,000 lists deep: one-line error
from imports import *
t = tmpdir("i08")
room, meta = nyu_room()
write_nyu(t / "nyu", [(room, meta)], raw_meta_lines=[b'{"a":' * 200000 + b"1" + b"}" * 200000])
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"])
why = one_line_error(p)
if why: broke("metadata: " + why)
write_nyu(t / "nyu2", [(room, meta)], raw_rooms={"room1": b"[" * 200000 + b"]" * 200000})
p = ob(["import", "nyu-debate", t / "nyu2", "--output", t / "run2"])
why = one_line_error(p)
broke("room: " + why) if why else held("both refused in one line: " + last_line(err_of(p))[:100])
