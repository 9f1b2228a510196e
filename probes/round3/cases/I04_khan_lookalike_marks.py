# Area 3 (imports): look-alike marks (<V_PASSAGE>, < v_passage >, <v-passage>, </v_passage > unbalanced, nested v in u) around a made-up claim: nothing renders verified
from imports import *
t = tmpdir("i04")
F = "Nobody ever sailed anywhere"
txt = (f"<argument>a <V_PASSAGE>{F} 1</V_PASSAGE> b < v_passage >{F} 2</ v_passage > c <v-passage>{F} 3</v-passage> "
       f"d <u_passage>x <v_passage>{F} 4</v_passage></u_passage> e <v_passage>{F} 5</u_passage> f <v_passage>{F} 6</argument>")
write_khan(t / "d.csv", [{"transcript": khan_transcript(correct=txt)}])
p = ob(["import", "llm-debate", t / "d.csv", "--output", t / "run"])
if p.returncode: error("import failed: " + last_line(err_of(p)))
bad = [q for q in verified_quotes(t / "run") if F in q]
if bad: broke(f"stored verified: {bad[:2]}")
if view_green(t / "run", F, t): broke("a look-alike mark renders green in view")
held("no look-alike mark verified")
