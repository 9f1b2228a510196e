# area 8: kill -9 a `judge --from` re-judge mid-way, run it again: same decisions as an uninterrupted re-judge
import os, sys, subprocess, time, signal; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run", limit=12)
args = ["judge", "--from", run, "--judge", "scripted:default", "--quiet"]
rc, out, err = ob(*args, "--output", f"{d}/ref"); assert rc == 0, err
kills = 0
for delay in (0.9, 1.2, 1.5):
    p = subprocess.Popen([OB, *args, "--output", f"{d}/k"], env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if p.poll() is None:
        p.send_signal(signal.SIGKILL); kills += 1
    p.wait()
rc, out, err = ob(*args, "--output", f"{d}/k")
if rc != 0: broke(f"re-judge resume after {kills} kills: rc={rc} {err.strip()[-200:]}")
a = sorted(q(f"{d}/ref/results.sqlite", "select job_key, judge, data from records where kind='decision'"))
b = sorted(q(f"{d}/k/results.sqlite", "select job_key, judge, data from records where kind='decision'"))
if a != b: broke(f"after {kills} kills: {len(b)} decisions vs {len(a)}")
held(f"{kills} kill -9, resume: {len(b)} decisions identical")
