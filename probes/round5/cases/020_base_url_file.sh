#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "base_url=file:///etc/passwd" run_small $T/r --judge "openai:m,base_url=file:///etc/passwd,api_key=x"
