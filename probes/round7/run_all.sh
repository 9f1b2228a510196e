#!/usr/bin/env bash
# REPO=<checkout> ./run_all.sh [PATTERN]  -> last-run.txt
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${REPO:-}" ]; then
  if [ -d "$HERE/../../oversight_bench" ]; then REPO=$(cd "$HERE/../.." && pwd); else echo "set REPO=<checkout>"; exit 2; fi
fi
export REPO
[ -n "${VENV:-}" ] && . "$VENV/bin/activate"
if [ -z "${VENV:-}" ] && [ -z "${VIRTUAL_ENV:-}" ]; then
  for v in "$REPO/.venv" "$REPO/../../main/.venv"; do [ -x "$v/bin/python" ] && { export VENV=$v; break; }; done
fi
out="$HERE/last-run.txt"; : > "$out"
held=0; broke=0; other=0
for c in "$HERE"/cases/*; do
  name=$(basename "$c")
  [ -n "${1:-}" ] && [[ "$name" != *$1* ]] && continue
  case "$c" in *.sh) cmd=(bash "$c");; *.py) cmd=(python "$c");; *) continue;; esac
  start=$(date +%s.%N)
  res=$(timeout 180 "${cmd[@]}" 2>/dev/null | grep -E '^(HELD|BROKE)' | tail -1)
  dt=$(printf "%.1f" "$(echo "$(date +%s.%N) - $start" | bc)")
  [ -z "$res" ] && res="BROKE: (case gave no verdict)"
  case "$res" in HELD*) held=$((held+1));; BROKE*) broke=$((broke+1));; esac
  printf "%-44s %6ss  %s\n" "$name" "$dt" "$res" | tee -a "$out"
done
echo "held $held broke $broke" | tee -a "$out"
