#!/bin/bash
# area: output-folders/bad-input: include-path task YAML whose name is '../evil' or whose files point outside (../../etc/passwd, absolute); export-task must not write outside --lm-eval, run must not read /etc/passwd as data
. "$(dirname "$0")/../lib.sh"
mkdir -p $T/inc $T/lm
head -3 $REPO/examples/task_pack/obench_capitals/elements.csv > $T/inc/elements.csv
for nm in "../evil" "a/b" "x..y" ".hidden"; do
sed "s#^name: elements#name: \"$nm\"#" $REPO/examples/task_pack/obench_capitals/elements.yaml > $T/inc/t.yaml
ob export-task "$nm" --include-path $T/inc --lm-eval $T/lm --limit 1 >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke "name $nm: traceback $(grep -v '^ ' $T/o | tail -1)"
ls $T/evil* $T/*.yaml $T/a 2>/dev/null | grep -q . && broke "export-task wrote outside --lm-eval for task name '$nm'"
done
sed "s#files: \[elements.csv\]#files: [../../../../../etc/passwd]#" $REPO/examples/task_pack/obench_capitals/elements.yaml > $T/inc/t.yaml
ob export-task elements --include-path $T/inc --lm-eval $T/lm2 --limit 1 >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke "passwd files: traceback $(grep -v '^ ' $T/o | tail -1)"
grep -rq "root:" $T/lm2 2>/dev/null && broke "a task YAML's files: ../../etc/passwd was read into the export"
held "rc=$rc $(head -c 120 $T/o)"
