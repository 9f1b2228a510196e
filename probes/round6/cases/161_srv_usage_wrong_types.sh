#!/bin/bash
# area: model servers; tries: a fake OpenAI server in mode 'usage_string' (report) against an openai judge (timeout=2,max_retries=1)
. $PROBE/lib.sh; . $PROBE/helpers/srv.sh
srv_start usage_string
srv_run
grep -q Traceback run.err && { echo "BROKE: run traceback $(tail -1 run.err)"; exit; }
[ $RC -le 2 ] || { echo "BROKE: run rc=$RC"; exit; }
[ -f out/r/results.sqlite ] || { echo "HELD (rc=$RC, nothing stored)"; exit; }
for c in "report out/r --output rep --no-figures" "export out/r" "view out/r --export ex" "leaderboard out/r --output lb"; do OB $c >o 2>e; r=$?; grep -q Traceback e && { echo "BROKE: $c traceback: $(tail -1 e)"; exit; }; [ $r -le 2 ] || { echo "BROKE: $c rc=$r"; exit; }; done
echo "HELD (run rc=$RC, readers survive)"
