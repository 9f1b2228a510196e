#!/bin/bash
# area: bad-input: a data directory whose boolq file is deep JSON, NaN-laden, wrong-typed, a symlink to /dev/zero, binary: one error line, no traceback, bounded
. "$(dirname "$0")/../lib.sh"
bad=""; i=0
for kind in deep nan types zero bin empty; do
  i=$((i+1)); d=$T/data$i; mkdir -p $d/boolq; f=$d/boolq/boolq_validation.json
  case $kind in
    deep) python -c "print('['*200000 + ']'*200000)" > $f;;
    nan) printf '[{"question": NaN, "answer": Infinity, "passage": "p"}]' > $f;;
    types) printf '[{"question": ["q"], "answer": "maybe", "passage": {"x": 1}}, 5, null]' > $f;;
    zero) ln -s /dev/zero $f;;
    bin) head -c 5000 /dev/urandom > $f;;
    empty) : > $f;;
  esac
  run_small $T/r$i --data-dir $d >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [$kind traceback: $(grep -v '^ ' $T/o | tail -1 | cut -c1-90)]"
  [ $rc = 124 ] && bad="$bad [$kind: ran past 60 s]"
  [ $rc = 0 ] || { [ $rc = 2 ] && grep -q '^error:' $T/o; } || bad="$bad [$kind rc=$rc $(tail -1 $T/o | cut -c1-80)]"
done
[ -n "$bad" ] && broke "$bad"
held
