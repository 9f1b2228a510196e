#!/bin/bash
# area: imports/bad-input: the built GSM8KQA JSONL (~/.cache/oversight-bench/gsm8kqa/gsm8kqa.jsonl) holds a deeply nested line: list tasks and build-task read it without a traceback (run/export-task not tried: first use runs 2,635 sandboxed programs, too slow here)
. "$(dirname "$0")/../lib.sh"
export HOME=$T/home XDG_CACHE_HOME=$T/home/.cache; mkdir -p $HOME/.cache/oversight-bench/gsm8kqa
python -c "print('['*200000 + ']'*200000)" > $HOME/.cache/oversight-bench/gsm8kqa/gsm8kqa.jsonl
bad=""
ob list tasks >$T/o 2>&1; grep -q Traceback $T/o && bad="$bad [list tasks: $(grep -v '^ ' $T/o | tail -1 | cut -c1-80)]"
OBTIMEOUT=30 ob build-task gsm8kqa --model scripted:default --limit 1 --k 2 >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && bad="$bad [build-task (default output): $(grep -v '^ ' $T/o | tail -1 | cut -c1-80)]"
[ -n "$bad" ] && broke "$bad"
held "run rc=$rc"
