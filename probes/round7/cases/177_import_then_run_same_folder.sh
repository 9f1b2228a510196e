#!/usr/bin/env bash
# run --output an imported folder (another identity): refused in one line, the import unchanged
. "$(dirname "$0")/../lib.sh"
python "$P9/helpers/mkcsv.py" forged_v "$T/x.csv"
ob import llm-debate "$T/x.csv" --output "$T/imp" >/dev/null 2>&1 || broke "setup import"
s=$(tree_sum "$T/imp")
mkrun "$T/imp"; rc=$?
grep -q Traceback "$T/mkrun.err" && broke traceback
[ "$s" = "$(tree_sum "$T/imp")" ] || broke "run (rc $rc) changed the imported folder"
[ $rc -eq 2 ] || broke "rc $rc"
held
