# Area 2 (sandbox): a program lists /root, /work/main, /home, the host /tmp (a marker file there) and reads /etc/shadow, the repo README and /run's uid locks: nothing of the host but Python's own folders
from sandbox_probe import *
mk = tmpdir("s14") / "host-marker-s14"; mk.write_text("host secret")
prog = f"""
import os
seen = {{}}
for p in ("/root", "/work/main", "/home", "{mk.parent}", "/etc/shadow", "/work/main/README.md", "/run/oversight-bench-uids", "/etc/hostname"):
    try:
        seen[p] = sorted(os.listdir(p)) if os.path.isdir(p) else open(p, "rb").read(20).decode("latin-1")
    except OSError:
        pass
ans = repr(seen)
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
seen = eval(r["answer"]) if r["status"] == "ok" else {}
bad = {k: v for k, v in seen.items() if not (isinstance(v, list) and set(v) <= {".pyenv", ".venv", "lib", "bin", "include", "share", ".cache", ".local"})}
broke(f"host files visible in the sandbox: {str(bad)[:150]}") if bad else held(f"only Python folders visible: {str(seen)[:110]}")
