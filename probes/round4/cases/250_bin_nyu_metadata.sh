#!/bin/bash
# area: bad-input (binary, non-UTF-8 file given where text is expected)
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > bin.dat
python $P6/gennyu.py forge_text nyu; cp bin.dat nyu/debates-metadata.jsonl; expect_usage import nyu-debate nyu --output imp
