#!/bin/bash
# area: data-loss. salvage --output is a symlink to an existing finished run (and a dangling symlink to a new path)
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; srun keep --tasks mmlu >/dev/null 2>&1; m=$(md5sum < keep/results.sqlite); ln -s keep link
out=$(ob salvage r --output link 2>&1); rc=$?; tb_check "$out"
[ "$m" = "$(md5sum < keep/results.sqlite)" ] || broke "salvage through a symlink modified another run (rc=$rc)"
held "rc=$rc"
