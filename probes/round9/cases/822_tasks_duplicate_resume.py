# area 8: "--tasks arith,arith" must be refused or normalised; resume with "--tasks arith" must work
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
base = ["run", "--judge", "scripted:default", "--protocols", "qa_without_article", "--limit", "1", "--output", f"{d}/out", "--quiet"]
rc, out, err = ob(*base, "--tasks", "arith,arith")
if rc == 2 and len(err.strip().splitlines()) == 1:
    held(f"duplicate refused: {err.strip()}")
cfg = json.load(open(f"{d}/out/config.json"))
rc2, out2, err2 = ob(*base, "--tasks", "arith")
if rc2 != 0:
    broke(f"duplicate accepted (rc={rc}) and stored as tasks={cfg.get('tasks')}; resuming with --tasks arith: rc={rc2}: {err2.strip()[:250]}")
held(f"duplicate normalised (stored {cfg.get('tasks')}), resume rc={rc2}")
