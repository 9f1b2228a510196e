# area 3: quotes that are substrings of the article but not whole words ("rapist" inside "therapist",
# "ip landed on the re" cutting words) are stored unverified; a whole-word quote is verified
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import implib
implib.STORY = "The therapist landed on the red moon at dawn. Captain Ora said the air was thin but breathable."
from implib import *
d = tmp()
txt = "<quote>rapist landed</quote> and <quote>ist landed on the re</quote> and <quote>Captain Ora said</quote>"
p = write_csv(f"{d}/x.csv", [transcript(correct=txt, story=implib.STORY)], story=implib.STORY)
rc, out, err, wall = do_import(p, d)
if rc != 0: broke(f"import failed rc={rc}: {err.strip()[-200:]}")
shown = " ".join(t.get("shown", "") for t in turns_shown(d))
bad = [x for x in ("rapist landed", "ist landed on the re") if f"<v_passage>{x}</v_passage>" in shown]
if bad: broke(f"part-word quotes verified: {bad}")
if "<v_passage>Captain Ora said</v_passage>" not in shown: broke(f"whole-word quote not verified: {shown[:200]}")
held("part-word quotes unverified, whole-word quote verified")
