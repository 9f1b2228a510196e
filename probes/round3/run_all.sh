#!/usr/bin/env bash
# Run every probe case against $REPO (default /work/main): prints "ID HELD|BROKE|ERROR evidence" per
# case (sorted by ID) and the totals. Usage:
#   REPO=/path/to/checkout bash /work/probe/run_all.sh [PATTERN]
# Env: CASE_TIMEOUT (default 180 s per case), JOBS (cases run at once, default 3; JOBS=1 for quiet timing).
# Cases are independent; each writes only under /tmp/probe-*; exit 0 HELD, 1 BROKE, anything else ERROR.
set -u
export REPO="${REPO:-/work/main}"
export OVERSIGHT_BENCH_DATA="${OVERSIGHT_BENCH_DATA:-/work/shared/datasets}"
HERE="$(cd "$(dirname "$0")" && pwd)"
export HERE
export T="${CASE_TIMEOUT:-180}"
PAT="${1:-}"
JOBS="${JOBS:-3}"
run_one() {
  f="$1"; name="$(basename "$f")"; id="${name%%_*}"
  case "$f" in *.py) cmd=(python3 "$f");; *.sh) cmd=(bash "$f");; *) return;; esac
  out="$(cd /tmp && PYTHONPATH="$HERE/lib" timeout -k 10 "$T" "${cmd[@]}" 2>/tmp/probe-last-stderr-$id)"
  rc=$?
  line="$(printf '%s\n' "$out" | grep -E '^(HELD|BROKE|ERROR) ' | tail -1)"
  ev="${line#* }"
  if [[ $rc -eq 0 ]]; then v=HELD; elif [[ $rc -eq 1 ]]; then v=BROKE; else v=ERROR
    [[ -z "$line" ]] && ev="rc=$rc $(tail -c 200 /tmp/probe-last-stderr-$id | tr '\n' ' ')"; fi
  [[ $rc -eq 124 || $rc -eq 137 ]] && ev="case timed out after ${T}s (hang) $ev"
  printf '%-5s %-5s %s\n' "$id" "$v" "$ev"
}
export -f run_one
# build the shared base run once before the cases start in parallel
(cd /tmp && PYTHONPATH="$HERE/lib" python3 -c "from probe import base_run; base_run()") >/dev/null
ls "$HERE"/cases/* | grep -- "${PAT}" | xargs -P "$JOBS" -I{} bash -c 'run_one "$@"' _ {} | sort -k1,1 > /tmp/probe-run-all.$$
cat /tmp/probe-run-all.$$
awk '{c[$2]++} END {printf "TOTAL held=%d broke=%d error=%d\n", c["HELD"], c["BROKE"], c["ERROR"]}' /tmp/probe-run-all.$$
rm -f /tmp/probe-run-all.$$
