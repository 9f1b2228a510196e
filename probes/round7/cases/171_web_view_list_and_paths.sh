#!/usr/bin/env bash
# view on a folder of runs (names with unicode/newline): list within 5 s, odd and traversal paths 4xx, never 500
. "$(dirname "$0")/../lib.sh"
mkrun "$T/runs/a" || broke setup; mkrun "$T/runs/b é"$'\n'"x" --seed 2 || broke setup; mkrun "$T/runs/c" --seed 3 || broke setup
timeout 60 python "$P9/helpers/web_view.py" "$T/runs" | tail -1
