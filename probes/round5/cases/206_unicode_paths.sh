#!/bin/bash
# area: unicode-paths: run/report/view/salvage/export with newline, RTL override, emoji, and a leading dash in the folder name
. "$(dirname "$0")/../lib.sh"
d="$T/-r"$'\n'$'\u202e'"☃ x"
run_small "$d" >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && broke "run traceback"; [ $rc = 0 ] || broke "run rc=$rc: $(tail -1 $T/o)"
ob report "$d" --no-figures --output "$T/rep"$'\n'"x" >$T/o 2>&1 || broke "report rc=$?: $(tail -1 $T/o)"
ob view "$d" --export "$T/v☃" >$T/o 2>&1 || broke "view rc=$?: $(tail -1 $T/o)"
ob salvage "$d" --output "$T/s"$'\t'"x" >$T/o 2>&1 || broke "salvage rc=$?: $(tail -1 $T/o)"
ob export "$d" >$T/o 2>&1 || broke "export rc=$?"
grep -rq Traceback $T/o && broke traceback
held
