#!/usr/bin/env bash
# import llm-debate --output an existing run: refused, run unchanged
. "$(dirname "$0")/../lib.sh"
mkrun "$T/a" || broke setup
printf 'transcript\n"{}"\n' > "$T/x.csv"
s=$(tree_sum "$T/a")
ob import llm-debate "$T/x.csv" --output "$T/a" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
[ "$s" = "$(tree_sum "$T/a")" ] || broke "import (rc $rc) changed an existing run"
[ $rc -ne 0 ] || broke "rc 0"
held
