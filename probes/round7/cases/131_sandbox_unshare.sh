#!/usr/bin/env bash
# sandbox: hostile program (unshare) through task_configs.sandbox.run_program (timeout 3, cpu 2, 256 MB)
. "$(dirname "$0")/../lib.sh"
out=$(timeout 40 nice python "$P9/helpers/sbx.py" unshare 2>"$T/e"); rc=$?
grep -q Traceback "$T/e" && broke "traceback: $(tail -1 $T/e)"
[ -n "$out" ] && echo "$out" | tail -1 && exit 0
broke "no result (rc $rc): $(tail -1 $T/e)"
