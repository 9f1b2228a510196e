#!/bin/bash
# area: output folders / data loss; tries: run into an existing run with another judge/seed: refused, the stored run byte-identical
. $PROBE/lib.sh; mkrun out/r; h=$(md5sum out/r/results.sqlite)
OB run --judge scripted:default,delay=0 --agent scripted:default --tasks arith --limit 1 --protocols qa_with_article,debate --seed 5 --output out/r --quiet >o 2>e; rc=$?
grep -q Traceback e && { echo "BROKE: traceback"; exit; }
[ "$h" = "$(md5sum out/r/results.sqlite)" ] && [ $rc = 2 ] && { echo "HELD ($(head -1 e | cut -c1-100))"; exit; }
echo "BROKE: rc=$rc, store changed: $( [ "$h" = "$(md5sum out/r/results.sqlite)" ] && echo no || echo yes)"
