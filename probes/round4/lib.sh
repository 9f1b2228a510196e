# sourced by every case
# REPO: the checkout under test (default: the one holding this folder); VENV: its environment
P6=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$P6/../.." && pwd)}
. "${VENV:-$REPO/.venv}/bin/activate"
export PYTHONPATH=$REPO OVERSIGHT_BENCH_DATA=${OVERSIGHT_BENCH_DATA:-$(cd "$REPO/.." && pwd)/shared/datasets}
mkdir -p "${TMPDIR:-/tmp}/probe-round4"
W=$(mktemp -d "${TMPDIR:-/tmp}/probe-round4/XXXXXX"); cd "$W"
trap 'for p in $KILLME; do kill $p 2>/dev/null; done; rm -rf "$W"' EXIT
ob() { nice timeout ${T:-60} python -m oversight_bench.cli "$@"; }
held(){ echo "HELD${1:+ ($*)}"; exit 0; }
broke(){ echo "BROKE: $*"; exit 0; }
SJ="--judge scripted:default --agent scripted:default"
# small run into $1 ; extra args after
srun(){ local o=$1; shift; ob run $SJ --tasks boolq --limit 1 --protocols qa_without_article --quiet --output "$o" "$@"; }
tb_check(){ grep -q Traceback <<<"$1" && broke "traceback: $(grep -E '^[A-Za-z.]*(Error|Exception|Exit)' <<<"$1" | tail -1)"; }
# expect a usage error: rc 2, an 'error:' line, no traceback
expect_usage(){ local out rc; out=$(ob "$@" 2>&1); rc=$?; tb_check "$out"
  [ $rc = 2 ] || broke "rc=$rc (want 2): $(tail -1 <<<"$out" | cut -c1-150)"
  grep -qi 'error:' <<<"$out" || broke "no error: line: $(tail -1 <<<"$out"| cut -c1-150)"
  held "$(grep -i -m1 'error:' <<<"$out" | cut -c1-110)"; }
# expect a failure with a clean message (rc in 1,2), no traceback
expect_clean_fail(){ local out rc; out=$(ob "$@" 2>&1); rc=$?; tb_check "$out"
  [ $rc = 1 -o $rc = 2 ] || broke "rc=$rc: $(tail -1 <<<"$out" | cut -c1-150)"
  held "rc=$rc $(grep -i -m1 'error' <<<"$out" | cut -c1-100)"; }
# start fake server: fake MODE [extra]; sets PORT
fake(){ local pf=$W/port.$RANDOM; python $P6/fake.py "$1" "$pf" "${2:-}" >$W/fake.log 2>&1 & KILLME="$KILLME $!"
  for i in $(seq 50); do [ -s $pf ] && break; sleep 0.1; done; PORT=$(cat $pf); }
sq(){ python - "$@" <<'PY'
import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print("\n".join(str(r) for r in c.execute(sys.argv[2])))
PY
}
# leakscan SECRET PATHS... : broke if SECRET appears (case-insensitive, also any 12-char run) in any file
leakscan(){ local s=$1; shift; local hit; hit=$(grep -ral -i -F -- "$s" "$@" 2>/dev/null | head -3 | tr '\n' ' ')
  [ -n "$hit" ] && broke "secret '$s' leaked into: $hit"; 
  hit=$(grep -ral -i -F -- "${s:2:12}" "$@" 2>/dev/null | head -3 | tr '\n' ' '); [ -n "$hit" ] && broke "12-char run of secret leaked into: $hit"; return 0; }
freeport(){ python -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])"; }
# bg_cli LOGNAME args... : start CLI in background, register for kill
bg_cli(){ local log=$1; shift; nice python -m oversight_bench.cli "$@" > $log 2>&1 & KILLME="$KILLME $!"; }
waitport(){ for i in $(seq 100); do python -c "import socket,sys;socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.2; done; return 1; }
