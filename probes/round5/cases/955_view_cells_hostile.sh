#!/bin/bash
# area: bad-input/stores: view --export --cells with hostile JSON (deep, NaN, wrong types, /dev/zero, binary)
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
i=0; bad=""
for doc in '{"cells": NaN}' "$(python -c 'print("["*100000 + "]"*100000)')" '{"cells": [{"judge": [1], "protocol": {"a": 1}}]}' '{"cells": "x"}' '"\ud800"' 'BIN' 'ZERO'; do
  i=$((i+1)); f=$T/c$i.json
  case "$doc" in BIN) head -c 2000 /dev/urandom > $f;; ZERO) f=/dev/zero;; *) printf '%s' "$doc" > $f;; esac
  ob view $T/r --export $T/v$i --cells $f >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [doc$i traceback: $(grep -v '^ ' $T/o | tail -1 | cut -c1-90)]"
  [ $rc = 0 ] || { [ $rc = 2 ] && grep -q '^error:' $T/o; } || bad="$bad [doc$i rc=$rc]"
done
[ -n "$bad" ] && broke "$bad"
held
