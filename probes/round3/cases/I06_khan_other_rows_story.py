# Area 3 (imports): two Khan rows of one question; row 2 carries another story holding the made-up words, and quotes them: unverified against the question's article
from imports import *
t = tmpdir("i06")
F = "the captain confessed everything"
write_khan(t / "d.csv", [{"id": "1"}, {"id": "2", "story": f"Once {F} at dawn.",
                          "transcript": khan_transcript(correct=f"<argument><quote>{F}</quote></argument>")}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"])
if p.returncode: error("import failed: " + last_line(err_of(p)))
bad = [q for q in verified_quotes(t / "run") if F in q]
broke(f"verified against another row's story: {bad}") if bad else held("row 2's quote unverified against the stored article")
