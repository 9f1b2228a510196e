#!/bin/bash
# area: output folders; tries: view --export / (must be refused; nothing written into /)
. $PROBE/lib.sh; mkrun out/r
before=$(ls -A / | md5sum); expect2 view out/r --export / | sed 's/^HELD/HELD/' > v; after=$(ls -A / | md5sum)
[ "$before" != "$after" ] && { echo "BROKE: / changed"; exit; }; cat v
