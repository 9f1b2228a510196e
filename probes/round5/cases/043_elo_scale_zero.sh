#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "elo --scale 0" ob elo --scale 0 --debaters scripted:default,scripted:default --judge scripted:default --tasks boolq --limit 1 --output $T/e
