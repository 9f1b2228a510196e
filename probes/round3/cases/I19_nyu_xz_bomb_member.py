# Area 3 (imports): an NYU tar.xz whose room member inflates to 100 MB (more than the member bound), and one with a negative Quote span / string span: one line, bounded
import time
from imports import *
t = tmpdir("i19")
room, meta = nyu_room()
(t / "nyu").mkdir()
(t / "nyu" / "debates-metadata.jsonl").write_text(json.dumps(meta) + "\n")
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = b" " * k; self.n -= k; return k
with tarfile.open(t / "nyu" / "debates_official.tar.xz", "w:xz", preset=0) as tar:
    info = tarfile.TarInfo("debates/official/room1.json"); info.size = 100 << 20
    tar.addfile(info, io.BufferedReader(Zeros(100 << 20)))
t0 = time.time()
p = ob(["import", "nyu-debate", t / "nyu", "--output", t / "run"], timeout=120)
took = time.time() - t0
why = one_line_error(p)
if why: broke("bomb: " + why)
if took > 60: broke(f"bomb took {took:.0f}s")
room2, meta2 = nyu_room(quote_span=("a", "b"))
write_nyu(t / "nyu2", [(room2, meta2)])
p = ob(["import", "nyu-debate", t / "nyu2", "--output", t / "run2"])
why = one_line_error(p)
broke("string span: " + why) if why else held(f"bomb refused in {took:.0f}s; string span refused")
