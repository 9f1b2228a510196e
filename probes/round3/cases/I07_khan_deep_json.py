# Area 3 (imports): a Khan CSV whose transcript JSON nests 200,000 lists deep (and one row 1,000 objects deep): no traceback
from imports import *
t = tmpdir("i07")
write_khan(t / "d.csv", [{"id": "1", "transcript": "[" * 200000 + "]" * 200000},
                         {"id": "2", "transcript": '{"a":' * 1000 + "1" + "}" * 1000}, {"id": "3"}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"])
why = no_traceback(p)
broke(why) if why else held(f"rc {p.returncode}: {last_line(out_of(p) + err_of(p))[:100]}")
