#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "elo --scale nan" ob elo --scale nan --debaters scripted:default,scripted:default --judge scripted:default --tasks boolq --limit 1 --output $T/e
