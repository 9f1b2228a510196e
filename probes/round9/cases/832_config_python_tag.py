# area 8: a config YAML with a !!python/object/apply tag is refused (no code runs)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
open(f"{d}/c.yaml", "w").write(f"judge: !!python/object/apply:os.system ['touch {d}/PWNED']\ntasks: [arith]\n")
rc, out, err = ob("run", "--config", f"{d}/c.yaml", "--output", f"{d}/out")
if os.path.exists(f"{d}/PWNED"): broke("YAML tag executed code")
check_error(rc, out, err, "python tag in YAML")
