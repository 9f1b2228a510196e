# common setup for every case
# REPO: the checkout under test (default: the one holding this folder); VENV: its environment
P7=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$P7/../.." && pwd)}
. "${VENV:-$REPO/.venv}/bin/activate"
export P7 REPO PYTHONPATH=$REPO OVERSIGHT_BENCH_DATA=${OVERSIGHT_BENCH_DATA:-$(cd "$REPO/.." && pwd)/shared/datasets}
T=$(mktemp -d /tmp/p7case.XXXXXX)
_PIDS=()
cleanup() { for p in "${_PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
ob() { nice -n 10 timeout ${OBTIMEOUT:-60} python -m oversight_bench.cli "$@"; }
# small scripted run: run_small DIR [extra args]
run_small() { local d=$1; shift; ob run --judge scripted:default --agent scripted:default --tasks boolq --protocols qa_without_article --limit 1 --quiet --output "$d" "$@"; }
held() { echo "HELD${1:+: $1}"; exit 0; }
broke() { echo "BROKE: $*"; exit 1; }
# expect a clean usage error: rc 2, one error: line, no traceback
expect2() { local what=$1; shift; "$@" >"$T/o" 2>"$T/e"; local rc=$?
  if grep -q Traceback "$T/o" "$T/e"; then broke "$what: traceback: $(grep -v '^ ' "$T/e" | tail -1 | cut -c1-150)"; fi
  [ $rc = 2 ] || broke "$what: rc=$rc (want 2): $(tail -q -n 2 "$T/e" "$T/o" | tr '\n' ' ' | cut -c1-200)"
  grep -qE "^(error: |Error: Invalid value|Error: Missing)" "$T/e" || broke "$what: no 'error:' line: $(tail -n 2 "$T/e" | tr '\n' ' ' | cut -c1-200)"
  held "$(grep -E '^(error|Error):' "$T/e" | head -1 | cut -c1-160)"; }
# start the fake server: serve MODE [args...] -> sets PORT
serve() { python $P7/fakesrv.py "$T/port" "$@" >"$T/srv.log" 2>&1 & _PIDS+=($!); for i in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done; PORT=$(cat "$T/port"); }
notb() { ! grep -q Traceback "$@"; }
