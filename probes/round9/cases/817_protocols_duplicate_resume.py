# area 8: "--protocols debate,,debate" must be refused or normalised; instead it is stored as
# ['debate','debate'] and the same run resumed with "--protocols debate" is refused as different
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
base = ["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--limit", "1",
        "--rounds", "1", "--best-of-n", "1", "--output", f"{d}/out", "--quiet"]
rc, out, err = ob(*base, "--protocols", "debate,,debate")
if rc == 2 and len(err.strip().splitlines()) == 1:
    held(f"duplicate refused: {err.strip()}")
cfg = json.load(open(f"{d}/out/config.json"))
rc2, out2, err2 = ob(*base, "--protocols", "debate")
if rc2 != 0:
    broke(f"duplicate accepted (rc={rc}) and stored as protocols={cfg.get('protocols')}; resuming with --protocols debate: rc={rc2}: {err2.strip()[:250]}")
held(f"duplicate normalised (stored {cfg.get('protocols')}), resume rc={rc2}")
