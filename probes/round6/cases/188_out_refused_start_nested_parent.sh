#!/bin/bash
# area: data loss; tries: a run refused at start (unknown task) into new a/b/c while a sibling run exists in a/: sibling kept, nothing left behind
. $PROBE/lib.sh; mkrun a/sib; h=$(md5sum a/sib/results.sqlite)
OB run $SJ --tasks nosuch --limit 1 --output a/b/c >o 2>e; rc=$?
[ -f a/sib/results.sqlite ] && [ "$h" = "$(md5sum a/sib/results.sqlite)" ] || { echo "BROKE: sibling run lost"; exit; }
[ -e a/b ] && { echo "BROKE: left a/b behind (rc=$rc)"; exit; }
echo "HELD (rc=$rc)"
