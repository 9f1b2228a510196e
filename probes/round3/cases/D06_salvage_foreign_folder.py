# Area 1 (data loss): salvage --output into a folder holding a user's files
from probe import *
from foreign import check
check(lambda run, out: ["salvage", run, "--output", out], {"notes.txt": "mine"}, "d06")
