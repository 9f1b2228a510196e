#!/usr/bin/env bash
# leaderboard --force over a real leaderboard plus a foreign file inside: the foreign file survives
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
mkrun "$T/r" || broke "setup"
ob leaderboard "$T/r" --output "$T/lb" --show-small >/dev/null 2>"$T/e" || broke "leaderboard: $(grep -v '^ ' $T/e| tail -1)"
foreign "$T/lb/my-notes.txt"; foreign "$T/lb/rooms/zz-mine.html"
ob leaderboard "$T/r" --output "$T/lb" --force >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
intact "$T/lb/my-notes.txt" && intact "$T/lb/rooms/zz-mine.html" || broke "--force (rc $rc) removed/changed a foreign file"
held "rc $rc"
