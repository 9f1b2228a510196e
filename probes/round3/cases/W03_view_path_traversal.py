# Area 7 (web): `view` asked for /room/..%2f..%2fetc%2fpasswd, /question/../../etc/passwd, /run/-1, /run/10**30, /view.css/../../etc/passwd, //etc/passwd: no file content, no 500
from web import *
run = copy_run("w03")
p, port = start_view([run])
try:
    time.sleep(1)
    paths = ["/room/..%2f..%2f..%2fetc%2fpasswd", "/room/../../../etc/passwd", "/question/..%2F..%2Fetc%2Fpasswd",
             "/question/%2e%2e/%2e%2e/etc/passwd", "/run/-1", "/run/" + "9" * 30, "/run/abc", "/view.css/../../etc/passwd",
             "//etc/passwd", "/room/%00", "/room/" + "x" * 5000, "/?page=-1", "/?page=" + "9" * 40, "/?sort=__class__&dir=x",
             "/room/%ud800"]
    for path in paths:
        st, h, body, ck = get(port, path)
        if "root:x:0:0" in body: broke(f"{path} served /etc/passwd")
        if st >= 500: broke(f"{path} -> HTTP {st}")
    held(f"{len(paths)} hostile paths: no file content, no 5xx")
finally:
    kill_tree(p)
