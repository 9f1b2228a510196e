# area 1: a refused start into an EXISTING empty folder leaves it (the user's) in place and empty
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); os.makedirs(f"{d}/out")
rc, out, err = ob("run", "--judge", "scripted:default", "--tasks", "arith", "--limit", "1", "--output", f"{d}/out", "-o", "judge_mode=bogus")
if not os.path.isdir(f"{d}/out"):
    broke("a refused start removed the user's pre-existing empty output folder")
if os.listdir(f"{d}/out"):
    broke(f"refused start left files: {os.listdir(f'{d}/out')}")
check_error(rc, out, err, "refused start into existing empty folder")
