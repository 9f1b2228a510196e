#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "duplicate spec key" run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:9/v1,timeout=2,timeout=3,api_key=x"
