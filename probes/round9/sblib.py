"""Sandbox harness: run programs through task_configs.sandbox.run_programs in a child interpreter."""
import json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *


def sandbox(programs, _env=None, **limits):
    """[{status, answer, stdout, error, transient}] and wall seconds."""
    code = ("import json,sys,time\nfrom task_configs.sandbox import run_programs\n"
            f"progs=json.loads({json.dumps(json.dumps(programs))})\nt=time.time()\n"
            f"rs=run_programs(progs, **json.loads({json.dumps(json.dumps(limits))}))\n"
            "print(json.dumps({'wall':time.time()-t,'r':[dict(status=r.status,answer=r.answer,stdout=r.stdout,error=r.error,transient=r.transient) for r in rs]}))")
    rc, out, err = py(code, timeout=120, **(_env or {}))
    if rc != 0:
        broke(f"sandbox harness failed rc={rc}: {err.strip()[-300:]}")
    d = json.loads(out.strip().splitlines()[-1])
    return d["r"], d["wall"]
