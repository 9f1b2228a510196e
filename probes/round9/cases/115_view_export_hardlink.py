# area 1: a re-export whose index.html is a hard link to a user's file elsewhere must not write through it
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("view", run, "--export", f"{d}/site"); assert rc == 0, err
open(f"{d}/notes.html", "w").write("MY NOTES")
os.remove(f"{d}/site/index.html"); os.link(f"{d}/notes.html", f"{d}/site/index.html")
rc, out, err = ob("view", run, "--export", f"{d}/site")
if "MY NOTES" not in open(f"{d}/notes.html").read():
    broke(f"view --export (rc={rc}) wrote through a hard link: {d}/notes.html now starts {open(f'{d}/notes.html').read()[:30]!r}")
held(f"rc={rc}; linked file untouched")
