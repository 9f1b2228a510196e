#!/usr/bin/env bash
# a 1e26 judge_max_tokens / seed 1e23 is accepted: then resume, report, salvage, export must all survive it
. "$(dirname "$0")/../lib.sh"
for args in "-o judge_max_tokens=99999999999999999999999999" "--seed 99999999999999999999999"; do
  d="$T/r$RANDOM"
  mkrun "$d" $args; rc=$?
  if [ $rc -eq 2 ]; then grep -q Traceback "$T/mkrun.err" && broke "$args: traceback"; continue; fi
  [ $rc -eq 0 ] || broke "$args: run rc $rc"
  mkrun "$d" $args || broke "$args: resume rc $?: $(grep -v '^ ' $T/mkrun.err | tail -1)"
  ob report "$d" --output "$d.rep" --no-figures >/dev/null 2>"$T/e" || broke "$args: report: $(grep -v '^ ' $T/e | tail -1)"
  ob salvage "$d" --output "$d.s" >/dev/null 2>"$T/e" || broke "$args: salvage: $(grep -v '^ ' $T/e | tail -1)"
  ob export "$d" >/dev/null 2>"$T/e" || broke "$args: export: $(grep -v '^ ' $T/e | tail -1)"
  ob view --export "$d.v" "$d" >/dev/null 2>"$T/e" || broke "$args: view: $(grep -v '^ ' $T/e | tail -1)"
done
held
