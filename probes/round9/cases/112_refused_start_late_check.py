# area 1: a start refused by a LATE check (data missing for a task, found after the store is opened) in new
# nested folders removes only what it made: the pre-existing parent and a sibling file stay
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); open(f"{d}/sibling.txt", "w").write("mine")
os.makedirs(f"{d}/data")  # an empty data folder: boolq missing
rc, out, err = ob("run", "--judge", "scripted:default", "--tasks", "boolq", "--limit", "1", "--data-dir", f"{d}/data", "--output", f"{d}/a/b/c")
left = sorted(os.listdir(d))
if left != ["data", "sibling.txt"]:
    broke(f"after refused start (rc={rc}) the folder holds {left}")
check_error(rc, out, err, "late-refused start")
