#!/bin/bash
# area: bad-input: seed 2**200 (YAML) and -1 (flag): accepted and stored, or refused in one line; never a traceback
. "$(dirname "$0")/../lib.sh"
printf 'seed: %s\n' "$(python -c 'print(2**200)')" > $T/c3.yaml
for a in "--config $T/c3.yaml" "--seed -1" "--seed 99999999999999999999999999"; do
  run_small $T/r$RANDOM $a >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && broke "$a: traceback $(grep -v '^ ' $T/o | tail -1 | cut -c1-100)"
  [ $rc = 0 ] || { [ $rc = 2 ] && grep -q '^error:' $T/o; } || broke "$a: rc=$rc"
done
held
