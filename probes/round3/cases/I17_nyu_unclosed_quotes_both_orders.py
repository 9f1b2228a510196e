# Area 3 (imports): an NYU room whose speech text holds 30,000 unclosed <v_passage> and <quote> tags, imported with --both-orders: < 20 s
import time
from imports import *
t = tmpdir("i17")
room, meta = nyu_room(text_a="<v_passage>Debater B lies " * 15000 + "<quote>option A " * 15000)
write_nyu(t / "nyu", [(room, meta)])
t0 = time.time()
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run", "--both-orders"], timeout=60)
took = time.time() - t0
if p.returncode == 124 or took > 20: broke(f"import took {took:.0f}s")
why = no_traceback(p)
broke(why) if why else held(f"{took:.1f}s, rc {p.returncode}")
