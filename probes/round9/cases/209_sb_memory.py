# area 2: memory over budget is the program's failure (memory/error), never transient, never ok
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = "x = bytearray(600 * 1024 * 1024)\nfor i in range(0, len(x), 4096): x[i] = 1\nans = len(x)\n"
prog2 = "import os\nfd = os.memfd_create('m')\nos.ftruncate(fd, 600 << 20)\nm = __import__('mmap').mmap(fd, 600 << 20)\nfor i in range(0, 600 << 20, 4096): m[i] = 1\nans = 1\n"
rs, wall = sandbox([prog, prog2], timeout=20, memory_mb=128)
bad = [r for r in rs if r["status"] == "ok" or r["transient"]]
if bad:
    broke(f"600 MB under 128 MB: {bad}")
held(f"{[(r['status'], r['error'][:50]) for r in rs]}")
