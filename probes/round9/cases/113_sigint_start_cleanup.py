# area 1: SIGINT during a run's first call (a stalled server): the run's finished records stay; a second
# start resumes; no user file in the parent is touched
import os, sys, subprocess, time, signal; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    time.sleep(30)
srv = FakeOpenAI(reply=reply)
d = tmp(); open(f"{d}/keep.txt", "w").write("mine")
args = ["run", "--judge", srv.spec().replace("timeout=5", "timeout=60"), "--tasks", "arith", "--protocols", "qa_without_article", "--limit", "1", "--output", f"{d}/run", "--quiet"]
p = subprocess.Popen([OB, *args], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
for _ in range(100):
    time.sleep(0.2)
    if srv.requests: break
p.send_signal(signal.SIGINT)
try:
    out, err = p.communicate(timeout=20)
except subprocess.TimeoutExpired:
    p.kill(); broke("SIGINT did not stop the run within 20 s")
if not os.path.exists(f"{d}/keep.txt"):
    broke("user file deleted")
if "Traceback" in err:
    broke(f"SIGINT gave a traceback: {err.strip().splitlines()[-1]}")
held(f"SIGINT: rc={p.returncode}, folder {sorted(os.listdir(d))}, stderr {err.strip()[-120:]!r}")
