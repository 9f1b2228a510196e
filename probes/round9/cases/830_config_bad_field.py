# area 8: --config YAML with an unknown field and a wrongly typed one: one line naming the field, nothing written
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
open(f"{d}/c.yaml", "w").write(f"judge: scripted:default\ntasks: [arith]\nlimt: 3\noutput: {d}/out\n")
rc, out, err = ob("run", "--config", f"{d}/c.yaml")
if os.path.exists(f"{d}/out"): broke("wrote output")
check_error(rc, out, err, "config with unknown field", must="limt")
