"""web_view.py DIR: start `view DIR`; the list answers within 5 s while it indexes; traversal/odd paths are 4xx, never 500."""
import socket, subprocess, sys, time, urllib.request, urllib.error
d = sys.argv[1]
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
pr = subprocess.Popen([sys.executable, "-m", "oversight_bench.cli", "view", d, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=open(d + "/../view.err", "w"))
def get(path, t=10):
    try:
        r = urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=t); return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
try:
    t0 = time.time()
    for _ in range(150):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); break
        except OSError:
            time.sleep(0.1)
    t1 = time.time(); st, body = get("/", 15); dt = time.time() - t1
    if st != 200: print(f"BROKE: list page {st}"); raise SystemExit
    if dt > 5: print(f"BROKE: list took {dt:.1f}s"); raise SystemExit
    bad = []
    for p in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/room/..%2f..%2fetc%2fpasswd", "/room/%00", "/run/%ff%fe",
              "/?page=-1", "/?page=99999999999999999999", "/?sort=%27%22<x>", "/room/" + "a" * 5000, "/static/../../../../etc/passwd"]:
        st, body = get(p)
        if st >= 500 or b"root:x:0" in body: bad.append(f"{p[:30]} -> {st}")
    print("HELD" if not bad else "BROKE: " + "; ".join(bad))
finally:
    pr.terminate(); pr.wait()
