#!/usr/bin/env bash
# --judges-file latin-1, NUL bytes, names twice, empty, a 50 MB file: one-line errors or accepted, no traceback, no hang
. "$(dirname "$0")/../lib.sh"
mkrun "$T/r" || broke setup
printf 'caf\xe9\n' > "$T/l1"; printf 'a\0b\n' > "$T/nul"; printf 'al\nal\n' > "$T/dup"; : > "$T/empty"
head -c 50000000 /dev/zero | tr '\0' 'a' > "$T/big"; printf '\xef\xbb\xbfbob\r\n\xe2\x80\xaeevil\n' > "$T/bom"
for f in l1 nul dup empty big bom; do
  OBT=8 ob serve --from "$T/r" --output "$T/o_$f" --judges-file "$T/$f" --port 1 >"$T/so" 2>"$T/e"; rc=$?
  if [ $rc -eq 124 ]; then grep -q "http://" "$T/so" "$T/e" && continue; broke "$f: hang"; fi
  grep -q Traceback "$T/e" && broke "$f: traceback $(grep -v '^ ' $T/e | tail -1)"
  [ $rc -eq 2 ] || [ $rc -eq 1 ] || broke "$f: rc $rc"
done
held
