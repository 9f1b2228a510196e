# Area 1 (data loss): leaderboard --output into a folder holding a user's files
from probe import *
from foreign import check
check(lambda run, out: ["leaderboard", run, "--output", out], {"notes.txt": "mine"}, "d05")
