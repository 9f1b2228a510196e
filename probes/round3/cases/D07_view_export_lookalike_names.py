# Area 1 (data loss): view --export into a user's own website folder whose names match what export writes (index.html, view.css, rooms/) but has no cells.json
from probe import *
from foreign import check
check(lambda run, out: ["view", run, "--export", out], {"index.html": "<h1>my homepage</h1>", "view.css": "body{}", "rooms/me.html": "mine"}, "d07")
