# Area 4 (model servers): a server echoing the API key upper-cased and the query credential percent-encoded char by char
from echo import *
pct = lambda s: "".join(f"%{ord(c):02X}" for c in s)
run_echo("m06", lambda k, q: f"KEY {k.upper()} Q {pct(q)}", secrets=(KEY, pct(QSECRET)))
