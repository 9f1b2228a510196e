#!/bin/bash
# area: data-loss: leaderboard --force on its own folder that also holds a user's file
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
ob leaderboard $T/r --output $T/lb >/dev/null 2>&1 || broke "setup leaderboard failed: rc=$?"
echo mine > $T/lb/my-notes.md; mkdir -p $T/lb/extra; echo x > $T/lb/extra/y
ob leaderboard $T/r --output $T/lb --force >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/e && broke traceback
[ -f $T/lb/my-notes.md ] && [ -f $T/lb/extra/y ] || broke "--force deleted files the leaderboard did not write (rc=$rc)"
held "rc=$rc"
