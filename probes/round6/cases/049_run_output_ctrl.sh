#!/bin/bash
# area: paths; tries: run into a folder whose name holds a control character, then report, view --export, export, resume on it
. $PROBE/lib.sh
D=$(printf '%q' x); D=$'out/a\001b'
mkrun "$D" || { echo "BROKE: run failed"; exit; }
OB report "$D" --output rep --no-figures >o 2>e || { grep -q Traceback e && echo "BROKE: report traceback" && exit; }
OB view "$D" --export ex >o 2>e; grep -q Traceback e && { echo "BROKE: view traceback"; exit; }
OB export "$D" >o 2>e || { echo "BROKE: export rc $?: $(tail -1 e)"; exit; }
mkrun "$D" || { echo "BROKE: resume failed"; exit; }
echo HELD
