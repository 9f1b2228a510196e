"""Plugin harness: a temp site dir with a fake distribution (dist-info + entry point) on PYTHONPATH."""
import os, sys, textwrap
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *
import lib


def make_plugin(site, code, name="p11plug", ep=None):
    os.makedirs(site, exist_ok=True)
    open(f"{site}/{name}.py", "w").write(textwrap.dedent(code))
    di = f"{site}/{name}-0.1.dist-info"
    os.makedirs(di, exist_ok=True)
    open(f"{di}/METADATA", "w").write(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    open(f"{di}/entry_points.txt", "w").write(f"[oversight_bench]\n{name} = {ep or name}\n")
    open(f"{di}/RECORD", "w").write("")


def ob_with(site, *args, **kw):
    old = lib.REPO
    lib.REPO = f"{old}:{site}"
    try:
        return ob(*args, **kw)
    finally:
        lib.REPO = old


def plugin_case(name, code, commands=(("list", "plugins"), ("list", "protocols"), ("list", "tasks")), run=True, ep=None):
    d = tmp(); site = f"{d}/site"
    make_plugin(site, code, ep=ep)
    cmds = list(commands)
    if run:
        cmds.append(("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--protocols",
                     "qa_without_article,debate", "--limit", "1", "--rounds", "1", "--best-of-n", "1", "--output", f"{d}/run", "--quiet"))
    notes = []
    for c in cmds:
        rc, out, err = ob_with(site, *c)
        label = " ".join(c[:2])
        if "Traceback" in err or "Traceback" in out:
            broke(f"{name}: `{label}` traceback: {[l for l in err.splitlines() if l.strip()][-1:]}")
        if rc != 0:
            broke(f"{name}: `{label}` exit {rc}: {err.strip()[-250:]}")
        warns = [l for l in err.splitlines() if "p11plug" in l]
        if not warns and c[:2] != ("list", "plugins"):
            broke(f"{name}: `{label}` gave no warning naming the plugin; stderr: {err.strip()[:200]!r}")
        if len(warns) > 1:
            broke(f"{name}: `{label}` gave {len(warns)} warning lines about it: {warns[:3]}")
        if c[:2] == ("list", "plugins") and "p11plug" not in out + err:
            broke(f"{name}: `list plugins` does not name the broken plugin")
        notes.append(f"{label}=ok")
    held(f"{name}: " + ", ".join(notes) + f"; warning: {(warns or [''])[0][:140]}")
