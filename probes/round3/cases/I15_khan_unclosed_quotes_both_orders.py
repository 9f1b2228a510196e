# Area 3 (imports): the same 1.3 MB CSV with 30,000 unclosed <quote> tags imported with --both-orders (the mirrored copy swaps names): < 20 s
import time
from imports import *
t = tmpdir("i15")
txt = "<argument>" + "<quote>Debater A is right " * 30000 + "</argument>"
write_khan(t / "d.csv", [{"transcript": khan_transcript(correct=txt)}])
t0 = time.time()
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run", "--both-orders"], timeout=60)
took = time.time() - t0
if p.returncode == 124 or took > 20: broke(f"import --both-orders took {took:.0f}s (quadratic on unclosed tags)")
why = no_traceback(p)
broke(why) if why else held(f"{took:.1f}s, rc {p.returncode}")
