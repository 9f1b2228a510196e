#!/bin/bash
# area: stores. judge --from a store with turn content=null and decision answers of wrong types: no traceback
. "$(dirname "$0")/../lib.sh"
ob run $SJ --tasks boolq --limit 1 --protocols debate --rounds 1 --best-of-n 1 --quiet --output r >/dev/null 2>&1 || broke setup
python $P6/storemut.py r/results.sqlite turn shown '{"x": [1]}'
out=$(ob judge --from r --judge scripted:default --output j --quiet 2>&1); rc=$?; tb_check "$out"; [ $rc -gt 2 ] && broke "rc=$rc"
held "rc=$rc"
