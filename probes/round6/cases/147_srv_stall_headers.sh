#!/bin/bash
# area: model servers; tries: a fake OpenAI server in mode 'stall_headers' (time:15) against an openai judge (timeout=2,max_retries=1)
. $PROBE/lib.sh; . $PROBE/helpers/srv.sh
srv_start stall_headers
srv_run
grep -q Traceback run.err && { echo "BROKE: traceback $(tail -1 run.err)"; exit; }
python3 -c "import sys; sys.exit(0 if $DT <= 15 else 1)" || { echo "BROKE: run took ${DT}s (limit 15s) rc=$RC"; exit; }
leak_check && echo "HELD (rc=$RC, ${DT}s)"
