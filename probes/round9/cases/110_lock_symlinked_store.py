# area 1: run B whose results.sqlite is a symbolic link to run A's store, started while A runs: the lock is
# on A's folder, so B must not write A's store concurrently (refused)
import os, sys, subprocess, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    time.sleep(1.0); h.send_json(completion("Answer: 1", body))
srv = FakeOpenAI(reply=reply)
d = tmp()
args = ["run", "--judge", srv.spec(), "--tasks", "arith", "--protocols", "qa_without_article", "--limit", "6", "--quiet", "--concurrency", "1"]
p = subprocess.Popen([OB, *args, "--output", f"{d}/A"], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
for _ in range(100):
    time.sleep(0.2)
    if srv.requests: break
os.makedirs(f"{d}/B"); os.symlink(f"{d}/A/results.sqlite", f"{d}/B/results.sqlite")
if os.path.exists(f"{d}/A/config.json"):
    os.symlink(f"{d}/A/config.json", f"{d}/B/config.json")
rc, out, err = ob(*args, "--output", f"{d}/B", timeout=60)
a_running = p.poll() is None
p.wait(timeout=60)
posts = sum(1 for r in srv.requests if r[0] == "POST")
if rc == 0:
    n = q(f"{d}/A/results.sqlite", "select count(*) from records")[0][0]
    broke(f"(A still running when B ended: {a_running}; {posts} POSTs for 12 calls) run B wrote into run A's store through a symlinked results.sqlite while A held its lock (rc=0; A now has {n} records)")
check_graceful(rc, out, err, "symlinked store while A runs", ok_rcs=(1, 2))
