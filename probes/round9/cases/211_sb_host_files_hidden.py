# area 2: the program sees no host data beyond the Python install: /work (datasets, code), ~/.cache, /etc/passwd, and cannot write /usr
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import os
seen = []
for p in ("/work/shared/datasets", "/work/main/README.md", "/work/main/oversight_bench", "/root/.bashrc", "/root/.cache", "/etc/passwd", "/home", "/run/oversight-bench-uids", "/proc/1/environ"):
    try:
        if os.path.isdir(p): os.listdir(p)
        else: open(p).read(10)
        seen.append(p)
    except OSError:
        pass
try:
    open("/usr/p11probe", "w"); seen.append("wrote /usr")
except OSError:
    pass
extra = sorted(set(os.listdir("/root")) - {".pyenv"}) + sorted(set(os.listdir("/work")) - {"main"}) + sorted(set(os.listdir("/work/main")) - {".venv"})
seen += extra
ans = ",".join(seen) or "none"
'''
(r,), wall = sandbox([prog], timeout=10)
if r["status"] != "ok":
    broke(f"program failed: {r}")
if r["answer"] != "none":
    broke(f"sandbox reads/writes host paths: {r['answer']}")
held("no host path readable or writable")
