import http.client, subprocess, time, urllib.parse
from probe import *

XSS = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\'><svg/onload=alert(3)>'
BAD = ("<script>alert", "<img src=x", "<svg/onload")


def xss_run(tag):
    run = copy_run(tag)
    c = db(run)
    x = XSS.replace("'", "''")
    c.execute(f"UPDATE questions SET data=json_set(data,'$.question','Q {x}','$.correct','C {x}','$.incorrect','I {x}','$.article','A {x}')")
    c.execute(f"UPDATE records SET data=json_set(data,'$.shown','S {x}','$.content','Thinking: T {x}\nArgument: S {x}','$.speaker','Alice {x}') WHERE kind='turn'")
    c.execute(f"UPDATE records SET data=json_set(data,'$.raw','R {x}','$.answers',json_array('Yes {x}','No {x}')) WHERE kind='decision'")
    c.execute(f"UPDATE calls SET response=json_set(response,'$.texts',json_array('Answer: 1 {x}'))")
    c.close()
    cfg = run / "config.json"
    import json as _j
    d = _j.loads(cfg.read_text()); d["note"] = XSS; cfg.write_text(_j.dumps(d))
    return run


def start_view(args, port=None, env=None):
    port = port or free_port()
    p = ob_popen(["view", *args, "--port", port], env=env)
    if not wait_port(port, 60):
        kill_tree(p)
        error("view did not start: " + text(p.stderr.read(2000)))
    return p, port


def start_serve(args, port=None, env=None):
    port = port or free_port()
    p = ob_popen(["serve", *args, "--port", port], env=env)
    if not wait_port(port, 60):
        kill_tree(p)
        error("serve did not start: " + text(p.stderr.read(2000)))
    return p, port


def get(port, path, headers=None, method="GET", body=None, timeout=20):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Host": f"127.0.0.1:{port}", **(headers or {})}
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    out = (r.status, dict(r.getheaders()), data.decode("utf-8", "replace"), r.headers.get_all("set-cookie") or [])
    c.close()
    return out
