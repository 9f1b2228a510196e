#!/bin/bash
# usage: REPO=/path/to/checkout [VENV=/path/to/venv] ./run_all.sh [pattern]   (from any folder)
cd "$(dirname "$0")"; export PROBE=$PWD REPO=${REPO:-/work/wt/probe}
mkdir -p tmp; . "${VENV:-$REPO/.venv}/bin/activate"
pat=${1:-.}
: > last-run.txt
echo "REPO=$REPO $(cd $REPO && git rev-parse --short HEAD 2>/dev/null) $(date -u)" >> last-run.txt
for f in cases/*; do
  case "$(basename $f)" in *$pat*) ;; *) [ "$pat" != . ] && continue;; esac
  if [[ $f == *.py ]]; then r=$(timeout 120 python3 $f 2>&1 | grep -E '^(HELD|BROKE)' | tail -1)
  else r=$(timeout 120 bash $f 2>&1 | grep -E '^(HELD|BROKE)' | tail -1); fi
  [ -z "$r" ] && r="BROKE: case produced no verdict (timeout?)"
  printf '%s\t%s\n' "$(basename $f)" "$r" | tee -a last-run.txt
done
echo "held: $(grep -c $'\tHELD' last-run.txt) broke: $(grep -c $'\tBROKE' last-run.txt)" | tee -a last-run.txt
