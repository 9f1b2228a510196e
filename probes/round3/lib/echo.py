"""An echo server puts the request's credentials into its reply; nothing of them may reach the
store, export, the exported view, config.json or the terminal."""
import base64, json
from probe import *
from servers import judge_run, leaks, KEY, QSECRET


def run_echo(tag, transform, secrets=(KEY, QSECRET), where=("run", "export", "site", "stderr")):
    def h(req, w):
        auth = req["headers"].get("Authorization") or req["headers"].get("authorization") or ""
        key = auth.split(" ", 1)[-1]
        q = req["path"].split("api-key=")[-1] if "api-key=" in req["path"] else ""
        send_json(w, chat_reply("Answer: 1. " + transform(key, q)))
    s = Server(h)
    p, out, took, t = judge_run(s, tag, qsecret=QSECRET)
    if not out.exists():
        error("no run folder: " + last_line(err_of(p)))
    found = []
    if "run" in where:
        found += leaks(out, secrets)
    if "export" in where:
        e = ob(["export", out])
        for sec in secrets:
            if sec.lower() in out_of(e).lower():
                found.append(f"{sec[:8]}... in export stdout")
    if "site" in where:
        ob(["view", out, "--export", t / "site"])
        found += [f"{x} (view export)" for x in leaks(t / "site", secrets)]
    if "stderr" in where:
        for sec in secrets:
            if sec.lower() in err_of(p).lower():
                found.append(f"{sec[:8]}... on stderr")
    if found:
        broke(f"echoed credential leaked: {found[:3]}")
    held(f"no credential found (rc {p.returncode})")
