#!/bin/bash
# area: run-lock: while a slow run writes $T/r, the same run again (plain path, path/., symlink path, after deleting every dot-file) must be refused, not run beside it
. "$(dirname "$0")/../lib.sh"
R() { ob run --judge scripted:default,delay=1,concurrency=1 --agent scripted:default --tasks boolq --protocols qa_without_article --limit 3 --quiet --output "$@"; }
( R $T/r >$T/oa 2>&1; echo $? > $T/rca ) &
for i in $(seq 40); do [ -f $T/r/results.sqlite ] && break; sleep 0.2; done; sleep 0.5
rm -f $T/r/.lock $T/r/.[a-z]* 2>/dev/null
res=""
R $T/r >$T/o1 2>&1; res="$res run=$?"
R $T/r/. >$T/o2 2>&1; res="$res run-dot=$?"
ln -s $T/r $T/rl; R $T/rl >$T/o3 2>&1; res="$res run-symlink=$?"
[ -f $T/rca ] && broke "first run finished before the check; case invalid ($res)"
msg=$(head -c 150 $T/o1)
wait
grep -q Traceback $T/o? $T/oa && broke "traceback: $res"
[ "$(cat $T/rca)" = 0 ] || broke "first run failed rc=$(cat $T/rca): $(tail -1 $T/oa) ($res)"
case "$res" in *=0*) broke "a second writer was let in: $res";; esac
n=$(python -c "import sqlite3,sys;c=sqlite3.connect('$T/r/results.sqlite');print([r for r in c.execute(\"select name from sqlite_master where type='table'\")])")
held "$res; $msg"
