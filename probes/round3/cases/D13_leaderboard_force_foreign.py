# Area 1 (data loss): leaderboard --force into a folder holding a user's files (force must only rebuild a leaderboard)
from probe import *
from foreign import check
check(lambda run, out: ["leaderboard", run, "--output", out, "--force"], {"notes.txt": "mine", "index.html": "<h1>mine</h1>"}, "d13")
