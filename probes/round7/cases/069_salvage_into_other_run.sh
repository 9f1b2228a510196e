#!/usr/bin/env bash
# salvage --output an existing run of another identity: refused, that run unchanged
. "$(dirname "$0")/../lib.sh"
mkrun "$T/a" || broke setup; mkrun "$T/b" --seed 7 || broke setup
s=$(tree_sum "$T/b")
ob salvage "$T/a" --output "$T/b" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
[ "$s" = "$(tree_sum "$T/b")" ] || broke "salvage (rc $rc) changed another run's folder"
[ $rc -eq 2 ] || broke "rc $rc"
held
