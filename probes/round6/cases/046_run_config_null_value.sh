#!/bin/bash
# area: bad input; tries: `limit:` (null) in YAML must be refused or mean the documented default, not crash
. $PROBE/lib.sh
printf 'judge: scripted:default\nagent: scripted:default\ntasks: arith\nlimit:\nrounds:\noutput: out/r\nprotocols: qa_without_article\n' > cfg.yaml
OB run --config cfg.yaml --quiet >o 2>e; rc=$?
if grep -q Traceback e; then echo "BROKE: traceback"; elif [ $rc = 0 ] || [ $rc = 2 ]; then echo "HELD (rc=$rc; null = default or refused)"; else echo "BROKE: rc=$rc $(tail -1 e)"; fi
