#!/bin/bash
# area: stores. hostile-but-valid store: decision field 'answer' = "1" ; salvage/report/view/export/resume: no traceback
. "$(dirname "$0")/../lib.sh"
RUN="run $SJ --tasks boolq --limit 1 --protocols qa_without_article,debate --rounds 1 --best-of-n 1 --quiet --output r"
ob $RUN >/dev/null 2>&1 || broke "setup"
python $P6/storemut.py r/results.sqlite 'decision' 'answer' '"1"' || broke "setup mut"
for cmd in "salvage r --output s" "report r --output rep --no-figures" "view r --export v" "export r" "export r --preferences" "$RUN"; do
  out=$(ob $cmd 2>&1 >/dev/null); rc=$?; tb_check "$out"; [ $rc -gt 2 ] && broke "${cmd%% *} rc=$rc"
  res="$res ${cmd%% *}:$rc"
done
held "$res"
