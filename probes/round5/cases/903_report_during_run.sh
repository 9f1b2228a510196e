#!/bin/bash
# area: combo/concurrency: report, view --export and export read a store while a run writes it; two reports race to the same new output folder
. "$(dirname "$0")/../lib.sh"
( ob run --judge scripted:default,delay=0.3,concurrency=1 --agent scripted:default --tasks boolq --protocols qa_without_article --limit 4 --quiet --output $T/r >$T/oa 2>&1; echo $? >$T/rca ) &
for i in $(seq 40); do [ -f $T/r/results.sqlite ] && break; sleep 0.2; done; sleep 0.4
ob report $T/r --no-figures --output $T/rep1 >$T/o1 2>&1; r1=$?
ob view $T/r --export $T/vx >$T/o2 2>&1; r2=$?
ob export $T/r >$T/o3 2>&1; r3=$?
( ob report $T/r --no-figures --output $T/same >$T/o4 2>&1; echo $? > $T/r4 ) & ( ob report $T/r --no-figures --output $T/same >$T/o5 2>&1; echo $? > $T/r5 ) & 
wait
grep -q Traceback $T/o? $T/oa && broke "traceback in $(grep -l Traceback $T/o? $T/oa | head -1): $(grep -hv '^ ' $(grep -l Traceback $T/o? $T/oa | head -1) | tail -1 | cut -c1-100)"
[ "$(cat $T/rca)" = 0 ] || broke "the run failed while read: $(tail -1 $T/oa)"
[ -f $T/same/report.json ] || broke "racing reports left no report (rc $(cat $T/r4) $(cat $T/r5))"
held "report=$r1 view=$r2 export=$r3 race=$(cat $T/r4),$(cat $T/r5)"
