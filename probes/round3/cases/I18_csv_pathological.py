# Area 3 (imports): pathological CSVs (an unterminated quoted field of 2 MB; 50,000 columns; NUL bytes; not UTF-8): one line each, no traceback, < 20 s each
import time
from imports import *
t = tmpdir("i18")
cases = {
    "unterminated": b'id,question,story,transcript,answer\n1,q,s,"' + b"x" * 2_000_000 + b"\n",
    "wide": b",".join(b"c%d" % i for i in range(50000)) + b",transcript\n" + b",".join(b"1" for _ in range(50001)) + b"\n",
    "nul": b"id,transcript\n1,\x00\x00{\x00}\n",
    "latin1": "id,transcript\n1,caf\xe9\n".encode("latin-1"),
    "empty": b"",
    "bom-only": b"\xef\xbb\xbf",
}
for name, data in cases.items():
    (t / f"{name}.csv").write_bytes(data)
    t0 = time.time()
    p = ob(["import", "llm-debate", t / f"{name}.csv", "--output", t / f"run-{name}"], timeout=60)
    took = time.time() - t0
    if took > 20: broke(f"{name}: took {took:.0f}s")
    why = no_traceback(p)
    if why: broke(f"{name}: {why}")
    if p.returncode == 0: broke(f"{name}: imported (rc 0) garbage")
held("all six refused in one line")
