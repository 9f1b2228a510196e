#!/bin/bash
# area: bad input; tries: view out/r --export ex --cells cells.json
. $PROBE/lib.sh
mkrun out/r; python -c "print('['*200000+']'*200000)" > cells.json
expect2 view out/r --export ex --cells cells.json
