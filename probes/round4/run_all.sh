#!/bin/bash
# usage: [REPO=/path/to/checkout] ./run_all.sh [PATTERN]   -> last-run.txt
cd "$(dirname "$0")"
export REPO=${REPO:-$(cd ../.. && pwd)}
pat=${1:-}
: > last-run.txt
echo "# run $(date -u +%FT%TZ) REPO=$REPO pattern='${pat}'" >> last-run.txt
for f in cases/*; do
  case "$f" in *"$pat"*) ;; *) continue;; esac
  case "$f" in *.sh) cmd="bash $f";; *) continue;; esac
  r=$(REPO=$REPO timeout 120 nice $cmd 2>/dev/null | grep -E '^(HELD|BROKE)' | tail -1)
  [ -z "$r" ] && r="BROKE: (case produced no verdict / timed out)"
  printf '%s\t%s\n' "$(basename $f)" "$r" | tee -a last-run.txt
done
echo "# held: $(grep -c $'\tHELD' last-run.txt)  broke: $(grep -c $'\tBROKE' last-run.txt)" | tee -a last-run.txt
