# area 3: transcripts of wrong types: a list, rounds a string, names a list, text a number
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = write_csv(f"{d}/x.csv", [json.dumps([1, 2]), transcript(rounds="abc"), transcript(names=[1]), transcript(correct=5), transcript(answers={"correct": None, "incorrect": 7})])
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_transcript_types: took {wall:.0f}s")
check_graceful(rc, out, err, "import_transcript_types")
