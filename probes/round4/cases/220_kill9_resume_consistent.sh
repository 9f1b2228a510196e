#!/bin/bash
# area: data-loss/stores. kill -9 mid-run (slow server), resume: integrity ok, same number of decisions as a clean run
. "$(dirname "$0")/../lib.sh"
fake slow 0.3
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20"
C="run --judge $O --agent scripted:default --tasks boolq --limit 6 --protocols qa_without_article --quiet --output r"
nice python -m oversight_bench.cli $C >a.log 2>&1 & A=$!; sleep 3.5; kill -9 $A; wait $A 2>/dev/null
out=$(ob $C 2>&1); rc=$?; tb_check "$out"; [ $rc = 0 ] || broke "resume after kill -9 rc=$rc: $(tail -1 <<<"$out")"
ic=$(sq r/results.sqlite "pragma integrity_check"); grep -q ok <<<"$ic" || broke "integrity: $ic"
n=$(sq r/results.sqlite "select count(*) from records where kind='decision'" | tr -dc 0-9)
[ "$n" = 12 ] || broke "decisions after resume: $n (want 12)"
held "decisions=$n"
