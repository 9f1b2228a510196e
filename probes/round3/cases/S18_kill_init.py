# Area 2 (sandbox): a program SIGKILLs the sandbox's init (pid 1) and its parent: a program failure, not transient
from sandbox_probe import *
prog = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(1, signal.SIGKILL)\nimport time; time.sleep(2)\nans = 1\n"
r = run_sandboxed([prog], timeout=60)["results"][0]
broke(f"marked transient: {r}") if r["transient"] else held(f"{r['status']}: {r['error'][:70]}")
