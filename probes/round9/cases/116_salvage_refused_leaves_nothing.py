# area 1: salvage of something that is no store, into a new nested output: graceful (no traceback); if refused, no folder left behind
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); os.makedirs(f"{d}/src"); open(f"{d}/src/results.sqlite", "wb").write(b"this is not sqlite" * 100)
open(f"{d}/src/config.json", "w").write("{}")
rc, out, err = ob("salvage", f"{d}/src", "--output", f"{d}/a/b/new")
if os.path.exists(f"{d}/a"):
    if rc != 0:
        broke(f"refused salvage (rc={rc}) left {[r for r, _, _ in os.walk(f'{d}/a')]}")
check_graceful(rc, out, err, "salvage of a non-store", ok_rcs=(0, 1, 2))
