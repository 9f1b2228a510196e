#!/bin/bash
# area: output folders / data loss; tries: 'view out/r --export D' twice, with a foreign file (and a foreign file in a subfolder) added between: kept or refused
. $PROBE/lib.sh; mkrun out/r
OB view out/r --export D >o 2>e || { echo "BROKE: first run failed rc=$? $(tail -1 e)"; exit; }
echo precious > D/notes.txt; d=$(find D -mindepth 1 -type d | head -1); [ -n "$d" ] && echo deep > "$d/mine.txt"
OB view out/r --export D >o 2>e; rc=$?
grep -q Traceback e && { echo "BROKE: traceback"; exit; }
[ -f D/notes.txt ] || { echo "BROKE: D/notes.txt deleted (rc=$rc)"; exit; }
[ -z "$d" ] || [ -f "$d/mine.txt" ] || { echo "BROKE: $d/mine.txt deleted (rc=$rc)"; exit; }
echo "HELD (rc=$rc, foreign files kept)"
