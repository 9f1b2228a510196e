# Area 7 (web): an imported room whose verified quote is 8,000 words of "a" against an article of near-misses (40 runs of 7,999 "a" then "b"): the room page (export) renders in < 20 s
import time
from imports import *
t = tmpdir("w12")
article = ("a " * 7999 + "b ") * 40 + "a " * 8000
q = ("a " * 8000).strip()
write_khan(t / "d.csv", [{"story": article, "transcript": khan_transcript(correct=f"<argument><quote>{q}</quote></argument>")}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"], timeout=60)
if p.returncode: error("import failed: " + last_line(err_of(p)))
if not verified_quotes(t / "run"): error("the quote was not verified (case premise)")
b0 = time.time(); ob(["view", copy_run("w12b"), "--export", t / "base-site"]); base = time.time() - b0
t0 = time.time()
q2 = ob(["view", t / "run", "--export", t / "site"], timeout=150)
took = time.time() - t0
if q2.returncode == 124 or took > base + 20: broke(f"view --export took {took:.0f}s (a normal run: {base:.0f}s) on one verified quote (regex backtracking in the article highlight)")
why = no_traceback(q2)
broke(why) if why else held(f"{took:.1f}s (a normal run {base:.1f}s)")
