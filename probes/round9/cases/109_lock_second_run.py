# area 1: a second run on the same output while the first is running is refused (OS lock), nothing of the
# first's lost
import os, sys, subprocess, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    time.sleep(1.0); h.send_json(completion("Answer: 1", body))
srv = FakeOpenAI(reply=reply)
d = tmp()
args = ["run", "--judge", srv.spec(), "--tasks", "arith", "--protocols", "qa_without_article", "--limit", "6", "--output", f"{d}/run", "--quiet", "--concurrency", "1"]
p = subprocess.Popen([OB, *args], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
for _ in range(100):
    time.sleep(0.2)
    if srv.requests: break
rc, out, err = ob(*args)
p.wait(timeout=60)
if rc == 0:
    broke("second concurrent run on the same output was not refused")
check_error(rc, out, err, "second run while first holds the lock", must="in use|lock")
