#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "export-task nosuch" ob export-task nosuch --lm-eval $T/lm
