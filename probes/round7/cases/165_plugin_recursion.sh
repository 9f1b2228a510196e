#!/usr/bin/env bash
# a broken plugin (recursion) installed as a package: one warning naming it; list plugins and a run still work
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/mkplugin.sh"
mkplugin "$T/site" p9bad_recursion 'import sys
def f(): return f()
f()'
export PYTHONPATH="$PYTHONPATH:$T/site"
OBT=30 ob list plugins >"$T/o" 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" "$T/o" && broke "list plugins traceback: $(grep -v '^ ' $T/e | tail -1)"
[ $rc -eq 0 ] || broke "list plugins rc $rc: $(tail -1 $T/e)"
grep -q p9bad "$T/o" "$T/e" || broke "the broken plugin is not named"
OBT=30 mkrun "$T/r"; rc=$?
grep -q Traceback "$T/mkrun.err" && broke "run traceback"
[ $rc -eq 0 ] || broke "run rc $rc: $(tail -1 $T/mkrun.err)"
held
