# area 1: leaderboard --force over an earlier leaderboard folder to which the user added notes.txt and
# a folder rooms/mine/ : nothing of theirs deleted
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("leaderboard", run, "--output", f"{d}/lb")
if rc != 0:
    broke(f"setup leaderboard failed rc={rc}: {err.strip()[-200:]}")
open(f"{d}/lb/notes.txt", "w").write("mine")
os.makedirs(f"{d}/lb/rooms/mine", exist_ok=True); open(f"{d}/lb/rooms/mine/a.txt", "w").write("mine")
rc, out, err = ob("leaderboard", run, "--output", f"{d}/lb", "--force")
lost = [p for p in ("notes.txt", "rooms/mine/a.txt") if not os.path.exists(f"{d}/lb/{p}")]
if lost:
    broke(f"leaderboard --force (rc={rc}) deleted user files {lost}")
if "Traceback" in err:
    broke(err.splitlines()[-1])
held(f"user files kept (rc={rc}) {err.strip()[:160]}")
