# Area 1 (data loss): view --export into a folder holding a user's index.html and a cells.json that is not an export manifest (plain text)
from probe import *
from foreign import check
check(lambda run, out: ["view", run, "--export", out], {"index.html": "<h1>my homepage</h1>", "cells.json": "my cell-biology notes, not JSON"}, "d08")
