# area 8: kill -9 a run at several moments, resume each time: final decisions identical to an uninterrupted run,
# nothing duplicated
import os, sys, subprocess, time, signal; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--protocols",
        "qa_without_article,consultancy,debate", "--limit", "12", "--rounds", "2", "--best-of-n", "2", "--quiet"]
rc, out, err = ob(*args, "--output", f"{d}/ref"); assert rc == 0, err
kills = 0
for delay in (1.2, 1.5, 1.8, 2.1):
    p = subprocess.Popen([OB, *args, "--output", f"{d}/k"], env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if p.poll() is None:
        p.send_signal(signal.SIGKILL); kills += 1
    p.wait()
rc, out, err = ob(*args, "--output", f"{d}/k")
if rc != 0:
    broke(f"resume after {kills} kill -9 failed rc={rc}: {err.strip()[-250:]}")
def decisions(r):
    return sorted(q(f"{r}/results.sqlite", "select job_key, judge, data from records where kind='decision'"))
def turns(r):
    return sorted(q(f"{r}/results.sqlite", "select job_key, seq, data from records where kind='turn'"))
a, b = decisions(f"{d}/ref"), decisions(f"{d}/k")
if a != b:
    diff = [x for x in b if x not in a][:1] or [x for x in a if x not in b][:1]
    broke(f"after {kills} kills: {len(b)} decisions vs {len(a)} uninterrupted; differs e.g. {str(diff)[:200]}")
if turns(f"{d}/ref") != turns(f"{d}/k"):
    broke(f"turns differ after {kills} kills")
held(f"{kills} kill -9, resume: {len(b)} decisions and turns identical")
