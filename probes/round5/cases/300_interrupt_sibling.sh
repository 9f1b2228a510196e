#!/bin/bash
# area: data-loss: run A into new parent $T/n/a/b stalls on a server and is interrupted (SIGINT, then SIGTERM);
# meanwhile run B wrote a finished run into $T/n/c and a user file into $T/n/a/. Nothing of B or the user may go.
. "$(dirname "$0")/../lib.sh"
serve stall 30
for sig in INT TERM; do
  rm -rf $T/n
  ( exec python -m oversight_bench.cli run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=x,max_retries=0,timeout=20" --tasks boolq --protocols qa_without_article --limit 1 --quiet --output $T/n/a/b >$T/oa 2>&1 ) & pa=$!
  sleep 2.5
  run_small $T/n/c >/dev/null 2>&1 || broke "run B failed"
  echo mine > $T/n/a/user.txt
  kill -$sig $pa; wait $pa; rca=$?
  grep -q Traceback $T/oa && broke "run A ($sig) traceback: $(grep -v '^ ' $T/oa | tail -1)"
  [ -f $T/n/c/results.sqlite ] || broke "run B's store deleted after A got SIG$sig (rc=$rca)"
  [ -f $T/n/a/user.txt ] || broke "user file in A's parent deleted after SIG$sig"
done
held "A rc=$rca"
