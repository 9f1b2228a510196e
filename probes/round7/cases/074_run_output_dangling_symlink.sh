#!/usr/bin/env bash
# run --output a dangling symlink: refused or created at the target, never a traceback
. "$(dirname "$0")/../lib.sh"
ln -s "$T/nowhere/deeper" "$T/dl"
mkrun "$T/dl"; rc=$?
grep -q Traceback "$T/mkrun.err" && broke "traceback: $(tail -1 $T/mkrun.err)"
[ $rc -eq 0 ] || [ $rc -eq 2 ] || broke "rc $rc"
[ -L "$T/dl" ] || broke "symlink itself removed/replaced"
held "rc $rc"
