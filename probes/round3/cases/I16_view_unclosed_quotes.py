# Area 3 (imports): the view (export) of an imported room whose text holds 30,000 unclosed <quote> tags: < 20 s
import time
from imports import *
t = tmpdir("i16")
txt = "<argument>" + "<quote>north is right " * 30000 + "</argument>"
write_khan(t / "d.csv", [{"transcript": khan_transcript(correct=txt)}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"], timeout=60)
if p.returncode: error("import failed: " + last_line(err_of(p)))
t0 = time.time()
q = ob(["view", t / "run", "--export", t / "site"], timeout=60)
took = time.time() - t0
if q.returncode == 124 or took > 20: broke(f"view --export took {took:.0f}s on 30,000 unclosed <quote> tags")
why = no_traceback(q)
broke(why) if why else held(f"{took:.1f}s, rc {q.returncode}")
