# area 1: leaderboard --force over an earlier board holding the user's notes.txt and a user page in
# transcripts/: refused, or rebuilt with both kept (never deleted)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("leaderboard", run, "--output", f"{d}/lb")
if rc != 0: broke(f"setup failed: {err.strip()[-200:]}")
open(f"{d}/lb/notes.txt", "w").write("mine")
os.makedirs(f"{d}/lb/transcripts", exist_ok=True)
open(f"{d}/lb/transcripts/my-analysis.html", "w").write("mine")
open(f"{d}/lb/transcripts/my-analysis.json", "w").write("{}")
rc, out, err = ob("leaderboard", run, "--output", f"{d}/lb", "--force")
lost = [p for p in ("notes.txt", "transcripts/my-analysis.html", "transcripts/my-analysis.json") if not os.path.exists(f"{d}/lb/{p}")]
if lost:
    broke(f"leaderboard --force (rc={rc}) deleted the user's {lost}")
if "Traceback" in err: broke(err.strip().splitlines()[-1])
held(f"rc={rc}; user files kept; {err.strip()[:150]}")
