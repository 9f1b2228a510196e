# area 8: a billion-laughs YAML config is refused quickly in one line (bounded memory/time)
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
y = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
prev = "a"
for c in "bcdefghij":
    y += f"{c}: &{c} [" + ",".join([f"*{prev}"] * 9) + "]\n"; prev = c
y += f"judge: scripted:default\noptions: {{x: *{prev}}}\n"
open(f"{d}/c.yaml", "w").write(y)
t = time.time()
rc, out, err = ob("run", "--config", f"{d}/c.yaml", "--output", f"{d}/out", timeout=60)
if rc == "TIMEOUT": broke("YAML bomb: no answer within 60 s")
if time.time() - t > 20: broke(f"YAML bomb took {time.time()-t:.0f}s")
check_error(rc, out, err, "YAML bomb")
