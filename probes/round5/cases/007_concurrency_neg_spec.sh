#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "spec concurrency=-3" run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:9/v1,api_key=x,concurrency=-3"
