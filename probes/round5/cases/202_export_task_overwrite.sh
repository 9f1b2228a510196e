#!/bin/bash
# area: output-folders: export-task into a folder holding the user's own boolq.yaml (not written by export-task)
. "$(dirname "$0")/../lib.sh"
mkdir $T/lm; echo "# my hand-written task" > $T/lm/boolq.yaml; echo "a,b" > $T/lm/boolq.csv
ob export-task boolq --limit 2 --lm-eval $T/lm >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/e && broke traceback
grep -q "my hand-written" $T/lm/boolq.yaml || broke "export-task overwrote a boolq.yaml it did not write (rc=$rc)"
held "rc=$rc $(head -c 120 $T/e)"
