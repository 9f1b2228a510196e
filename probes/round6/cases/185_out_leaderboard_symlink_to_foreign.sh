#!/bin/bash
# area: output folders; tries: 'leaderboard out/r --output L' where L is a symlink to a non-empty foreign folder: refused, nothing touched
. $PROBE/lib.sh; mkrun out/r; mkdir F; echo precious > F/notes.txt; ln -s F L
OB leaderboard out/r --output L >o 2>e; rc=$?
grep -q Traceback e && { echo "BROKE: traceback"; exit; }
[ "$(ls F)" = notes.txt ] && [ "$(cat F/notes.txt)" = precious ] || { echo "BROKE: F changed: $(ls F | head -5 | tr '\n' ' ') rc=$rc"; exit; }
echo "HELD (rc=$rc)"
