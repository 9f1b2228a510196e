#!/bin/bash
# area: bad input; tries: a YAML config holding a NUL byte
. $PROBE/lib.sh
python3 -c "open('cfg.yaml','wb').write(b'judge: scripted:default\x00\nagent: scripted:default\ntasks: arith\nlimit: 1\noutput: out/r\n')"
expect2 run --config cfg.yaml
