# Area 3 (imports): a 1.3 MB Khan CSV whose debater text holds 30,000 unclosed <quote> tags: imported in linear time (< 20 s)
import time
from imports import *
t = tmpdir("i14")
txt = "<argument>" + "<quote>north is right " * 30000 + "</argument>"
write_khan(t / "d.csv", [{"transcript": khan_transcript(correct=txt)}])
t0 = time.time()
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"], timeout=120)
took = time.time() - t0
if p.returncode == 124 or took > 20: broke(f"import took {took:.0f}s")
why = no_traceback(p)
broke(why) if why else held(f"{took:.1f}s, rc {p.returncode}")
