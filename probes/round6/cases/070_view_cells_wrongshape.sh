#!/bin/bash
# area: bad input; tries: view out/r --export ex --cells cells.json
. $PROBE/lib.sh
mkrun out/r; echo '{"cells": 5}' > cells.json
expect2 view out/r --export ex --cells cells.json
