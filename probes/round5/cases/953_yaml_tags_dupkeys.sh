#!/bin/bash
# area: bad-input: config YAML with a python tag (must not run), and the same key twice (must be refused, not silently last-wins)
. "$(dirname "$0")/../lib.sh"
printf 'seed: !!python/object/apply:os.system ["touch %s/pwned"]\n' "$T" > $T/c1.yaml
printf 'seed: 1\nseed: 2\n' > $T/c2.yaml
run_small $T/r1 --config $T/c1.yaml >$T/o 2>&1; rc=$?
[ -f $T/pwned ] && broke "YAML python tag executed"
grep -q Traceback $T/o && broke "c1 traceback"
[ $rc = 2 ] || broke "python tag accepted rc=$rc"
run_small $T/r2 --config $T/c2.yaml >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke "c2 traceback"
[ $rc = 2 ] || broke "a config with 'seed' twice accepted (rc=$rc, last value wins silently)"
held
