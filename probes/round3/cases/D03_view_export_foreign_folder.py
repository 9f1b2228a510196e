# Area 1 (data loss): view --export into a folder holding a user's notes
from probe import *
from foreign import check
check(lambda run, out: ["view", run, "--export", out], {"notes.txt": "mine", "thesis.tex": "mine"}, "d03")
