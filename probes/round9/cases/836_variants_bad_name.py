# area 8: a config's variants with a path-like name ('../escape') is refused before anything is written
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
open(f"{d}/c.yaml", "w").write(f"judge: scripted:default\ntasks: [arith]\nprotocols: [qa_without_article]\nlimit: 1\noutput: {d}/out\nvariants:\n  ../escape: {{judge_temperature: 0.5}}\n")
rc, out, err = ob("run", "--config", f"{d}/c.yaml")
if os.path.exists(f"{d}/escape") or os.path.exists(f"{d}/out"): broke(f"wrote {os.listdir(d)}")
check_error(rc, out, err, "variant named ../escape", must="variant")
