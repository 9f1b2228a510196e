# Area 4 (model servers): a server echoing the API key split across two lines (and the query credential with a line break in it)
from echo import *
run_echo("m04", lambda k, q: f"key:\n{k[:12]}\n{k[12:]}\nq: {q[:6]}\n{q[6:]}",
         secrets=(KEY[12:], QSECRET[6:]))
