#!/usr/bin/env bash
# build-task --output a FIFO: must be refused (not a regular file), never block
. "$(dirname "$0")/../lib.sh"
mkfifo "$T/fifo"
OBT=15 ob build-task gsm8kqa --model scripted:default --output "$T/fifo" --limit 1 >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 124 ] && broke "build-task --output FIFO hangs (open(output,'a') blocks; killed after 15 s)"
grep -q Traceback "$T/err" && broke "traceback"
[ $rc -eq 2 ] || broke "exit $rc"
held
