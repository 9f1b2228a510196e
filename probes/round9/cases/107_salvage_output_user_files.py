# area 1: salvage --output a folder with a user's file: refused, file untouched
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
os.makedirs(f"{d}/o"); open(f"{d}/o/samples.jsonl", "w").write("MINE")
rc, out, err = ob("salvage", run, "--output", f"{d}/o")
if open(f"{d}/o/samples.jsonl").read() != "MINE" or set(os.listdir(f"{d}/o")) != {"samples.jsonl"}:
    broke(f"salvage (rc={rc}) wrote into / overwrote a user folder: {os.listdir(f'{d}/o')}")
check_error(rc, out, err, "salvage into a folder with a user file named like output")
