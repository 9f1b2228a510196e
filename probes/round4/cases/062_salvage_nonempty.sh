#!/bin/bash
# area: output-folders. salvage --output into a non-empty folder / a different run
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; srun other --seed 5 --tasks mmlu >/dev/null 2>&1
m=$(md5sum < other/results.sqlite)
out=$(ob salvage r --output other 2>&1); rc=$?; tb_check "$out"
[ "$m" = "$(md5sum < other/results.sqlite)" ] || broke "salvage modified another run's store (rc=$rc)"
mkdir junk; echo x > junk/a.txt
out=$(ob salvage r --output junk 2>&1); rc2=$?; tb_check "$out"
[ -f junk/a.txt ] || broke "salvage deleted junk/a.txt"
[ $rc2 = 0 ] && broke "salvage accepted non-empty unrelated folder"
held "rc=$rc/$rc2"
