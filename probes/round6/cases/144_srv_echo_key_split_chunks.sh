#!/bin/bash
# area: model servers; tries: a fake OpenAI server in mode 'echo_split' (leak) against an openai judge (timeout=2,max_retries=1)
. $PROBE/lib.sh; . $PROBE/helpers/srv.sh
srv_start echo_split
srv_run
leak_check && echo "HELD (rc=$RC, ${DT}s, no secret in store/export/view/report/output)"
