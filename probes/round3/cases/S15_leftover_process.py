# Area 2 (sandbox): a program double-forks a sleeper with a unique marker in its argv and exits: no such process survives the sandbox
from sandbox_probe import *
import subprocess
prog = r"""
import os, subprocess
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["/bin/sleep", "300"])
    os._exit(0)
ans = 1
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
time.sleep(1)
ps = subprocess.run(["ps", "-eo", "pid,user,args"], capture_output=True, text=True).stdout
left = [l for l in ps.splitlines() if "sleep 300" in l and "1600" in l or ("sleep 300" in l and "nobody" in l)]
broke(f"survivor: {left[0][:100]}") if left else held(f"no survivor ({r['status']})")
