#!/bin/bash
# area: model servers; tries: a fake OpenAI server in mode 'gzip_bomb' (size) against an openai judge (timeout=2,max_retries=1)
. $PROBE/lib.sh; . $PROBE/helpers/srv.sh
srv_start gzip_bomb
srv_run
grep -q Traceback run.err && { echo "BROKE: traceback $(tail -1 run.err)"; exit; }
sz=$(du -sm out/r | cut -f1)
[ "$sz" -gt 20 ] && { echo "BROKE: store is ${sz} MB after a hostile reply"; exit; }
python3 -c "import sys; sys.exit(0 if $DT <= 40 else 1)" || { echo "BROKE: took ${DT}s"; exit; }
echo "HELD (rc=$RC, ${DT}s, store ${sz} MB)"
