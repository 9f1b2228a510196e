# common setup for cases
. "${VENV:-${REPO:-/work/wt/probe}/.venv}/bin/activate"
export PYTHONPATH=${REPO:-/work/wt/probe} OVERSIGHT_BENCH_DATA=${OVERSIGHT_BENCH_DATA:-$REPO/../shared/datasets}
export PYTHONDONTWRITEBYTECODE=1
P8=$PROBE
OB() { nice timeout ${OBT:-60} python -m oversight_bench.cli "$@"; }
T=$(mktemp -d "$PROBE/tmp/c.XXXXXX"); cd "$T"
trap 'rm -rf "$T"' EXIT
SJ="--judge scripted:default --agent scripted:default"
mkrun() { OB run $SJ --tasks arith --limit ${2:-1} --protocols ${3:-qa_with_article,debate} --output "$1" --quiet >/dev/null 2>&1; }
# expect a clean refusal: rc 2, no traceback, an error line
expect2() {
  OB "$@" >out.txt 2>err.txt; rc=$?
  if grep -q Traceback err.txt out.txt; then echo "BROKE: traceback: $(grep -v '^ ' err.txt | tail -1 | cut -c1-150)"; return; fi
  if [ $rc -ne 2 ]; then echo "BROKE: rc=$rc (want 2): $(tail -1 err.txt | cut -c1-150)"; return; fi
  if ! grep -qi '^error:' err.txt; then echo "BROKE: no error: line: $(head -c 200 err.txt)"; return; fi
  n=$(grep -ci '^error' err.txt); l=$(grep -i '^error' err.txt | head -1)
  echo "HELD ($(echo "$l" | cut -c1-120))"
}
