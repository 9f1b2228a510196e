# area 1: a user's NOTES.txt and a user's file merely NAMED like a room page (rooms/0123456789abcdef.html) inside an earlier export's rooms/: a re-export keeps both, or is refused
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("view", run, "--export", f"{d}/site"); assert rc == 0, err
open(f"{d}/site/rooms/NOTES.txt", "w").write("mine")
open(f"{d}/site/rooms/0123456789abcdef.html", "w").write("mine too, named like a page")
rc, out, err = ob("view", run, "--export", f"{d}/site")
if not os.path.exists(f"{d}/site/rooms/NOTES.txt"):
    broke(f"re-export (rc={rc}) deleted rooms/NOTES.txt")
gone = not os.path.exists(f"{d}/site/rooms/0123456789abcdef.html")
if gone and rc == 0:
    broke("re-export deleted a user's file merely named like a room page (rooms/0123456789abcdef.html) inside an export folder")
held(f"re-export rc={rc}: user files kept; {err.strip()[:150]}")
