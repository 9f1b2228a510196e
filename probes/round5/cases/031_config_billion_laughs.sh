#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
python - "$T/c.yaml" <<'PY'
import sys
s = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for i in range(1, 10):
    p, c = chr(96 + i), chr(97 + i)
    s += f'{c}: &{c} [' + ','.join([f'*{p}'] * 9) + ']\n'
s += 'seed: 1\n'
open(sys.argv[1], 'w').write(s)
PY
expect2 "billion laughs YAML" run_small $T/r --config $T/c.yaml
