# Area 3 (imports): a Khan quote "the rapist" against a story with "therapist", and "Mar s" against "Mars": unverified (round-two regression)
from imports import *
t = tmpdir("i05")
write_khan(t / "d.csv", [{"transcript": khan_transcript(correct="<argument><quote>was a the rapist who</quote> and <quote>saw Mar s</quote></argument>")}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"])
if p.returncode: error("import failed: " + last_line(err_of(p)))
bad = [q for q in verified_quotes(t / "run") if "rapist" in q or "Mar s" in q]
broke(f"verified: {bad}") if bad else held("word-boundary forgeries unverified")
