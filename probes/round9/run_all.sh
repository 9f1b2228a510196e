#!/bin/bash
# REPO=<checkout> ./run_all.sh [pattern]   -- runs cases one at a time, writes last-run.txt
here="$(cd "$(dirname "$0")" && pwd)"
: "${REPO:?set REPO to a checkout}"; export REPO
VENV="${VENV:-$REPO/.venv}"
pat="${1:-}"
out="$here/last-run.txt"
: > "$out.tmp"
for c in "$here"/cases/*; do
  n="$(basename "$c")"
  [[ -n "$pat" && "$n" != *$pat* ]] && continue
  case "$c" in *.py) cmd=("$VENV/bin/python" "$c");; *.sh) cmd=(bash "$c");; *) continue;; esac
  start=$(date +%s)
  line="$(timeout 150 nice -n 10 "${cmd[@]}" 2>&1 | grep -E '^(HELD|BROKE):' | tail -1)"
  [[ -z "$line" ]] && line="BROKE: (case produced no verdict / timed out)"
  printf '%s\t%ss\t%s\n' "$n" "$(( $(date +%s) - start ))" "$line" | tee -a "$out.tmp"
done
mv "$out.tmp" "$out"
echo "held: $(grep -c $'\tHELD' "$out")  broke: $(grep -c $'\tBROKE' "$out")"
