#!/bin/bash
# area: imports. llm-debate CSV 'manyrows' (40 MB cell / 3000 rows / 60k unclosed tags): bounded time and memory
. "$(dirname "$0")/../lib.sh"
python $P6/gencsv.py manyrows in.csv
s=$(date +%s); out=$( { /usr/bin/time -f 'MAXRSS=%M' nice timeout 60 python -m oversight_bench.cli import llm-debate in.csv --output imp; } 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "hung >60s"; [ $rc -gt 2 ] && broke "rc=$rc"
rss=$(grep -o 'MAXRSS=[0-9]*' <<<"$out" | cut -d= -f2); [ "${rss:-0}" -gt 1500000 ] && broke "max RSS ${rss} KB"
[ $e -gt 45 ] && broke "took ${e}s"
held "rc=$rc ${e}s rss=${rss}KB"
