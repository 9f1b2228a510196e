#!/bin/bash
# area: servers: a 307 redirect to another port: the API key must not be sent there (nor the call hang)
. "$(dirname "$0")/../lib.sh"
serve ok; P2=$PORT; mv $T/port $T/port2; mv $T/port.reqs $T/port2.reqs
sed -i "s#port.reqs#port.reqs#" /dev/null
python $P7/fakesrv.py $T/port redirect "http://127.0.0.1:$P2/v1/chat/completions" >/dev/null 2>&1 & _PIDS+=($!)
for i in $(seq 50); do [ -s $T/port ] && break; sleep 0.1; done; PORT=$(cat $T/port)
run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=sk-RedirKey777,max_retries=0,timeout=5" >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke traceback
grep -q "RedirKey777" $T/port2.reqs 2>/dev/null && broke "API key followed the redirect to another port (rc=$rc)"
grep -q "RedirKey777" $T/o && broke "key in stderr"
held "rc=$rc"
