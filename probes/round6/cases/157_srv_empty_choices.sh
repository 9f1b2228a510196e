#!/bin/bash
# area: model servers; tries: a fake OpenAI server in mode 'empty_choices' (time:20) against an openai judge (timeout=2,max_retries=1)
. $PROBE/lib.sh; . $PROBE/helpers/srv.sh
srv_start empty_choices
srv_run
grep -q Traceback run.err && { echo "BROKE: traceback $(tail -1 run.err)"; exit; }
python3 -c "import sys; sys.exit(0 if $DT <= 20 else 1)" || { echo "BROKE: run took ${DT}s (limit 20s) rc=$RC"; exit; }
leak_check && echo "HELD (rc=$RC, ${DT}s)"
