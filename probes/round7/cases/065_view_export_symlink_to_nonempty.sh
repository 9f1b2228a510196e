#!/usr/bin/env bash
# view --export LINK where LINK -> a non-empty folder: refused, nothing written through the link
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
mkrun "$T/r" || broke "setup"
foreign "$T/home/a.txt"; ln -s "$T/home" "$T/link"
ob view --export "$T/link" "$T/r" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
n=$(ls "$T/home" | wc -l)
[ $rc -ne 0 ] && [ "$n" = 1 ] && intact "$T/home/a.txt" && held
broke "rc $rc, $n entries in the linked folder"
