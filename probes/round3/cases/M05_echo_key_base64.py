# Area 4 (model servers): a server echoing the API key base64-encoded
from echo import *
b = lambda s: base64.b64encode(s.encode()).decode()
run_echo("m05", lambda k, q: f"key b64: {b(k)} q b64: {b(q)}", secrets=(b(KEY), b(QSECRET)))
