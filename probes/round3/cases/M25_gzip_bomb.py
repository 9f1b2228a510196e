# Area 4 (model servers): a gzip-encoded reply that inflates to 1 GB (1 MB on the wire): bounded (refused as too large), memory bounded
import gzip, io, zlib
from probe import *
from servers import judge_run
co = zlib.compressobj(9, zlib.DEFLATED, 31)
head = b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1'
parts = [co.compress(head)]
z = b"x" * (1 << 20)
for _ in range(1024):
    parts.append(co.compress(z))
parts.append(co.compress(b'"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}'))
parts.append(co.flush())
body = b"".join(parts)
s = Server(lambda req, w: send_json(w, body, headers={"Content-Encoding": "gzip"}))
import resource
p, out, took, t = judge_run(s, "m25", opts={"timeout": 60}, timeout=150)
size = sum(f.stat().st_size for f in out.glob("results.sqlite*")) if out.exists() else 0
if size > 20e6:
    broke(f"stored {size/1e6:.0f} MB from a gzip bomb")
if p.returncode in (-9, 137):
    broke("killed (out of memory?) by a gzip bomb")
why = no_traceback(p)
broke(why) if why else held(f"store {size/1e6:.1f} MB, {took:.0f}s, rc {p.returncode}: {last_line(err_of(p))[:90]}")
