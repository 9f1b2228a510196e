# srv_start MODE -> sets PORT, SRVPID
srv_start() { python3 $PROBE/helpers/fakesrv.py $T/port "$1" >$T/srv.log 2>&1 & SRVPID=$!; for i in $(seq 50); do [ -f $T/port ] && break; sleep 0.1; done; PORT=$(cat $T/port); trap 'kill $SRVPID 2>/dev/null; rm -rf "$T"' EXIT; }
KEY=sk-probe-SECRETkey-1234567890abcdefXYZ
QS=qcred-SECRET-98765zyxwv
export MYKEY=$KEY
# srv_run EXTRA_SPEC_OPTS: run with an openai judge against the fake server, times it
srv_run() { local t0=$(date +%s.%N); OB run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1?token=$QS,api_key_env=MYKEY,${1:-timeout=2,max_retries=1}" --agent scripted:default --tasks arith --limit 1 --protocols qa_without_article --output out/r --quiet >run.out 2>run.err; RC=$?; DT=$(python3 -c "print(round($(date +%s.%N)-$t0,1))"); }
leak_check() { # every output: the store, export, view export, run output
  OB export out/r >exp.jsonl 2>exp.err; OB view out/r --export ex >/dev/null 2>view.err; OB report out/r --output rep --no-figures >/dev/null 2>&1
  for s in "$KEY" "$QS" "${KEY:9:12}" "${QS:6:12}"; do
    hit=$(grep -rlaF -- "$s" out run.out run.err exp.jsonl exp.err ex view.err rep 2>/dev/null | head -3 | tr '\n' ' ')
    [ -n "$hit" ] && { echo "BROKE: secret fragment '${s:0:10}…' in: $hit"; return 1; }
  done
  grep -q Traceback run.err exp.err view.err && { echo "BROKE: traceback $(grep -h -A0 Error run.err exp.err view.err | tail -1)"; return 1; }
  return 0
}
