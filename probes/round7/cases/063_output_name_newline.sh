#!/usr/bin/env bash
# run into a folder whose name holds a newline and unicode; then report/export/salvage read it
. "$(dirname "$0")/../lib.sh"
d="$T/ru"$'\n'"n é‮"
mkrun "$d" || broke "run: $(tail -1 $T/mkrun.err)"
ob report "$d" --output "$T/rep" --no-figures >/dev/null 2>"$T/e" || broke "report rc $?: $(grep -v '^ ' $T/e | tail -1)"
ob export "$d" >/dev/null 2>"$T/e" || broke "export: $(tail -1 $T/e)"
ob salvage "$d" --output "$T/s" >/dev/null 2>"$T/e" || broke "salvage: $(tail -1 $T/e)"
held
