# Area 1 (data loss): report --output into a folder holding a user's files
from probe import *
from foreign import check
check(lambda run, out: ["report", run, "--output", out, "--no-figures"], {"notes.txt": "mine"}, "d04")
