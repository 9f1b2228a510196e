#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "timeout=1e400" run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:9/v1,api_key=x,timeout=1e400"
