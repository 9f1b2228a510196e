#!/bin/bash
# area: imports/bad-input: build-task --output is an existing JSONL with deep JSON, NaN, a lone surrogate, binary, or /dev/zero: one error line or skipped lines, no traceback, bounded
. "$(dirname "$0")/../lib.sh"
bad=""; i=0
for kind in deep nan surr bin zero; do
  i=$((i+1)); f=$T/o$i.jsonl
  case $kind in
    deep) python -c "print('['*200000 + ']'*200000)" > $f;;
    nan) printf '{"id": NaN, "question": Infinity}\n' > $f;;
    surr) printf '{"id": "\\ud800x"}\n' > $f;;
    bin) head -c 4000 /dev/urandom > $f;;
    zero) ln -s /dev/zero $f;;
  esac
  OBTIMEOUT=30 ob build-task gsm8kqa --model scripted:default --limit 1 --k 2 --output $f >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [$kind traceback: $(grep -v '^ ' $T/o | tail -1 | cut -c1-80)]"
  [ $rc = 124 ] && bad="$bad [$kind hung]"
  [ $rc = 0 ] || { [ $rc = 2 ] && grep -q '^error:' $T/o; } || bad="$bad [$kind rc=$rc]"
done
[ -n "$bad" ] && broke "$bad"
held
