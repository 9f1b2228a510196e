import os
seen = []
for p in ("/work/probe7/lib.sh", "/work/shared/datasets", "/etc/shadow", "/proc/1/environ", "/work/wt/probe/README.md", "/home", "/root/.bash_history", "/root/.ssh", "/tmp/p7", "/work/issues"):
    try:
        if os.path.isdir(p) and os.listdir(p): seen.append(p)
        elif os.path.isfile(p): open(p, "rb").read(10); seen.append(p)
    except OSError: pass
for d in ("/root", "/work", "/work/main"):
    try:
        extra = [x for x in os.listdir(d) if x not in (".pyenv", "main", ".venv")]
        if extra: seen.append(f"{d}:{extra[:3]}")
    except OSError: pass
print(seen)
result = len(seen)
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.ok and r.answer == 0
