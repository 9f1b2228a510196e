# Area 6 (plugins): a plugin printing to stdout at import and in a hook:  stdout must stay JSON lines
from plugins import *
def also(t, pp):
    run = copy_run("p14r")
    e = ob(["export", run], pythonpath=pp)
    bad = [ln for ln in out_of(e).splitlines() if ln.strip() and not ln.startswith("{")]
    if bad:
        broke(f"export stdout holds {len(bad)} non-JSON line(s) from a plugin: {bad[0][:60]!r}")
check_plugin("p14", HEAD + "print(\"HELLO FROM PLUGIN IMPORT\")\n@hookimpl\ndef register_tasks(register):\n    print(\"HELLO FROM HOOK\")\n", also=also)
