#!/bin/bash
# area: web/bad-input: --judges-file with BOM + CRLF + duplicates + blank lines; one with 20000 names; one with a bad name on line 3
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
printf '\xef\xbb\xbfalice\r\nbob\r\n\r\nalice\r\n' > $T/j1; python -c "print('\n'.join(f'j{i}' for i in range(20000)))" > $T/j2; printf 'alice\nbob\nev il\n' > $T/j3
bad=""
for f in j1 j2 j3; do
  OBTIMEOUT=20 ob serve --from $T/r --output $T/s$f --judges-file $T/$f --port $((20000 + RANDOM % 20000)) >$T/o 2>&1 & p=$!
  sleep 6; kill $p 2>/dev/null; wait $p 2>/dev/null
  grep -q Traceback $T/o && bad="$bad [$f: traceback $(grep -v '^ ' $T/o | tail -1 | cut -c1-100)]"
  [ $f = j3 ] && ! grep -q "^error:.*ev il" $T/o && bad="$bad [j3: bad name not named in an error: $(head -c 100 $T/o)]"
done
[ -n "$bad" ] && broke "$bad"
held
