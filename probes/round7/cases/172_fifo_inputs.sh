#!/usr/bin/env bash
# FIFOs as inputs (--config, --judges-file, import PATH, --carry, --cells): refused in one line, never a hang
. "$(dirname "$0")/../lib.sh"
mkfifo "$T/f"
mkrun "$T/r" || broke setup
for c in "run --config $T/f --output $T/o1" "serve --from $T/r --output $T/o2 --judges-file $T/f" \
         "import llm-debate $T/f --output $T/o3" "import nyu-debate $T/f --output $T/o4" \
         "leaderboard $T/r --output $T/o5 --carry $T/f" "view --export $T/o6 --cells $T/f $T/r"; do
  OBT=20 ob $c >/dev/null 2>"$T/e"; rc=$?
  [ $rc -eq 124 ] && broke "hangs on a FIFO: ${c%% --*}"
  grep -q Traceback "$T/e" && broke "traceback: ${c%% --*}"
  [ $rc -eq 2 ] || broke "rc $rc: ${c%% --*}"
done
held
