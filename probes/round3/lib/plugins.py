"""A hostile plugin on a PYTHONPATH folder: `list plugins` must still work and name it, and the other
commands (`list protocols`, a scripted smoke run) must work."""
from probe import *

HEAD = "from oversight_bench import hookimpl\n"


def check_plugin(tag, source, *, module="probe_bad", dist_name="probe-bad", ep_name="probe_bad", metadata=None,
                 need_named=True, also=None, ep_target=None):
    t = tmpdir(tag)
    site = make_plugin(t / "site", module, source, dist_name=dist_name, ep_name=ep_name, metadata=metadata,
                       ep_target=ep_target)
    pp = [str(site)]
    lp = ob(["list", "plugins"], pythonpath=pp, timeout=60)
    why = one_line_error(lp, rc=0) if lp.returncode != 0 else (no_traceback(lp))
    if lp.returncode != 0 or has_traceback(lp):
        broke(f"`list plugins` failed: rc {lp.returncode}: {last_line(err_of(lp) or out_of(lp))}")
    if need_named and ep_name not in out_of(lp) and (dist_name or "") not in out_of(lp):
        broke(f"`list plugins` does not name the plugin ({ep_name}): {last_line(out_of(lp))}")
    pr = ob(["list", "protocols"], pythonpath=pp, timeout=60)
    if pr.returncode != 0 or "debate" not in out_of(pr):
        broke(f"`list protocols` failed: rc {pr.returncode}: {last_line(err_of(pr))}")
    r = ob(["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "boolq", "--protocols",
            "qa_without_article,debate", "--limit", "1", "--quiet", "--output", t / "run"], pythonpath=pp, timeout=120)
    if r.returncode != 0:
        broke(f"a smoke run failed beside the plugin: rc {r.returncode}: {last_line(err_of(r) or out_of(r))}")
    if not (t / "run" / "results.sqlite").exists():
        broke(f"the smoke run (exit {r.returncode}) wrote no run: `run` is not the built-in command any more")
    if also:
        also(t, pp)
    warn = [ln for ln in err_of(lp).splitlines() if "warning" in ln.lower()]
    held("commands work; " + (warn[0][:120] if warn else "list plugins: " + last_line(out_of(lp))[:100]))
