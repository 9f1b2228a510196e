#!/bin/bash
# area: output-folders: view --export / and --export $HOME (non-empty) refused
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
for d in / /tmp "$T"; do ob view $T/r --export "$d" >$T/o 2>$T/e; rc=$?; [ $rc = 2 ] || broke "view --export $d rc=$rc"; done
ls /index.html 2>/dev/null && broke "wrote /index.html"
held
