# Area 2 (sandbox): the sandboxed program runs under a seccomp filter (Seccomp: 2 in /proc/self/status) with no capabilities
from sandbox_probe import *
prog = r"""
s = open("/proc/self/status").read()
ans = " ".join(l.split(":")[1].strip() for l in s.splitlines() if l.startswith(("Seccomp:", "CapEff:")))
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
p = str(r["answer"]).split()
if r["status"] != "ok": error(f"{r}")
caps, sec = p[0], p[1]
if sec != "2": broke(f"no seccomp filter (Seccomp: {sec})")
if int(caps, 16) != 0: broke(f"the program holds capabilities {caps}")
held(f"Seccomp 2, CapEff {caps}")
