# sourced by every case: REPO (the checkout under test), env, temp dir T, helpers
P9=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)        # the probe folder
if [ -z "${REPO:-}" ]; then
  if [ -d "$P9/../../oversight_bench" ]; then REPO=$(cd "$P9/../.." && pwd)
  else echo "BROKE: set REPO=<checkout>"; exit 1; fi
fi
export REPO PYTHONPATH="$REPO${EXTRA_PYTHONPATH:+:$EXTRA_PYTHONPATH}"
export OVERSIGHT_BENCH_DATA=${OVERSIGHT_BENCH_DATA:-$REPO/../../shared/datasets}
[ -d "$OVERSIGHT_BENCH_DATA" ] || export OVERSIGHT_BENCH_DATA=/work/shared/datasets
if [ -n "${VENV:-}" ]; then . "$VENV/bin/activate"; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/p9.XXXXXX"); PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
cd "$T"
ob() { nice -n 5 timeout "${OBT:-60}" python -m oversight_bench.cli "$@"; }
SCR="--judge scripted:default --agent scripted:default"
# a tiny run: mkrun DIR [extra args]
mkrun() { local d=$1; shift; ob run $SCR --tasks arith --protocols qa_without_article,debate --limit 2 --rounds 1 --best-of-n 1 --quiet --output "$d" "$@" >/dev/null 2>"$T/mkrun.err"; }
held() { echo "HELD${1:+ ($1)}"; exit 0; }
broke() { echo "BROKE: $*"; exit 0; }
# expect_err DESC CMD...: rc 2, one "error:" line on stderr, no traceback
expect_err() {
  local what=$1; shift
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if grep -q "Traceback" "$T/err" "$T/out"; then broke "$what: traceback: $(grep -v '^ ' "$T/err" | tail -1 | cut -c1-150)"; fi
  [ $rc -eq 2 ] || broke "$what: exit $rc (want 2): $(head -c 200 "$T/err" | tr '\n' ' ')"
  local n; n=$(grep -c . "$T/err")
  if grep -q "^Error: " "$T/err" && grep -q "^Usage: " "$T/err"; then return 0; fi  # click's usage error
  grep -q "^error:" "$T/err" || broke "$what: no 'error:' line: $(head -c 200 "$T/err" | tr '\n' ' ')"
  [ "$n" -le 2 ] || broke "$what: $n lines on stderr: $(head -c 200 "$T/err" | tr '\n' ' ')"
  return 0
}
# srv MODE [args] : start the fake server, sets PORT
srv() { python "$P9/helpers/fakesrv.py" "$@" >"$T/srv.port" 2>"$T/srv.log" & PIDS+=($!);
  for i in $(seq 50); do [ -s "$T/srv.port" ] && break; sleep 0.1; done; PORT=$(head -1 "$T/srv.port"); }
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum 2>/dev/null | sha256sum); }
