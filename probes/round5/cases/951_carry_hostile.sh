#!/bin/bash
# area: stores/bad-input: leaderboard --carry with hostile results.json (NaN, deep nesting, wrong types, 1e400, a list)
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
bad=""
i=0
for doc in '{"cells": NaN}' '{"cells": [[[[[[[[[[]]]]]]]]]]}' "$(python -c 'print("["*100000 + "]"*100000)')" '{"cells": [{"judge": 5, "accuracy": "x", "n": -1e400}]}' '[1,2]' '{"cells": [{"judge": "j", "protocol": "debate", "task": "boolq", "accuracy": 1e400, "n": 1e400}]}' ''; do
  i=$((i+1)); printf '%s' "$doc" > $T/c$i.json
  ob leaderboard $T/r --output $T/lb$i --carry $T/c$i.json >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [doc$i traceback: $(grep -v '^ ' $T/o | tail -1 | cut -c1-90)]"
  [ $rc = 0 ] || [ $rc = 2 ] || bad="$bad [doc$i rc=$rc]"
done
[ -n "$bad" ] && broke "$bad"
held
