#!/bin/bash
# usage: REPO=/path/to/checkout ./run_all.sh [pattern]
cd "$(dirname "$0")"
export REPO=${REPO:-$(cd ../.. && pwd)}
pat=${1:-}
out=last-run.txt; : > $out
echo "REPO=$REPO $(date -u)" | tee -a $out
h=0; b=0
for f in cases/*.sh; do
  case "$f" in *"$pat"*) ;; *) continue;; esac
  res=$(timeout 120 bash "$f" 2>/dev/null | grep -E '^(HELD|BROKE)' | tail -1)
  [ -z "$res" ] && res="BROKE: (case printed no verdict)"
  case "$res" in HELD*) h=$((h+1));; *) b=$((b+1));; esac
  echo "$(basename $f): $res" | tee -a $out
done
echo "total: $((h+b)) held: $h broke: $b" | tee -a $out
