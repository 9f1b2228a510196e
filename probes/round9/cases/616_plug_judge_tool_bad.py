# area 6: a judge tool whose attributes (label, tasks, supports) raise when used: `run -o judge_tool=p11tool`
# is one line naming it (or the plugin), never a traceback; `list protocols` works
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
d = tmp(); site = f"{d}/site"
make_plugin(site, '''
from oversight_bench import hookimpl
class J:
    name = "p11tool"
    def __getattr__(self, k): raise RuntimeError(f"tool {k} boom")
@hookimpl
def register_judge_tools(register):
    register(J())
''')
rc, out, err = ob_with(site, "list", "protocols")
if "Traceback" in err or rc != 0:
    broke(f"list protocols: rc={rc} {err.strip().splitlines()[-1:]}")
rc, out, err = ob_with(site, "run", "--judge", "scripted:default", "--tasks", "arith", "--protocols", "qa_without_article",
                       "--limit", "1", "--output", f"{d}/run", "--quiet", "-o", "judge_tool=p11tool")
check_graceful(rc, out, err, "run with a judge tool that raises", ok_rcs=(1, 2))
