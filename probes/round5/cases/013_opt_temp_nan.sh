#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "-o agent_temperature=nan" run_small $T/r -o agent_temperature=nan
