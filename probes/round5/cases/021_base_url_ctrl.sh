#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "base_url with newline" run_small $T/r --judge $'openai:m,base_url=http://127.0.0.1:9/v1\nX-Evil: 1,api_key=x'
