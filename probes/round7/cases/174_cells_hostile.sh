#!/usr/bin/env bash
# view --export --cells: JSON with odd types, paths escaping, deep nesting, NaN: one-line error, nothing written
. "$(dirname "$0")/../lib.sh"
mkrun "$T/r" || broke setup
i=0
for j in '{"cells": []}' '{"cells": {"a": {"title": 5, "decisions": [["/etc", "x", "y"]]}}}' '{"cells": {"a": {"title": "t", "decisions": [[1,2,3]]}}}' \
  '{"cells": {"../../x": {"title": "t", "decisions": []}}}' "{\"cells\": $(python -c 'print("["*20000+"]"*20000)')}" '{"cells": {"a": {"title": NaN, "decisions": [["r", "j", "k"]]}}}' \
  '{"cells": {"a": {"title": "t", "decisions": [["r", "scripted:default", "nope"]]}}}'; do
  i=$((i+1)); printf '%s' "$j" > "$T/c$i.json"
  ob view --export "$T/o$i" --cells "$T/c$i.json" "$T/r" >/dev/null 2>"$T/e"; rc=$?
  grep -q Traceback "$T/e" && broke "cells $i: traceback: $(grep -v '^ ' $T/e | tail -1)"
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || broke "cells $i: rc $rc"
  [ -e "$T/x" ] && broke "cells $i wrote outside the export"
done
held
