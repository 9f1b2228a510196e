#!/bin/bash
# area: servers: server echoes the key base64-encoded / reversed / split with a zero-width space
. "$(dirname "$0")/../lib.sh"
serve raw '{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 key c2stUFJPQkU3U0VDUkVUVkFMVUU5ODc2 | sk-PROBE7SECRET\u200bVALUE9876 | sk-PROBE7SECRETVALUE9876"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'
run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=sk-PROBE7SECRETVALUE9876,max_retries=0,timeout=5" >$T/o 2>&1
ob export $T/r > $T/exp.jsonl 2>&1
grep -q "PROBE7SECRETVALUE9876" $T/exp.jsonl && broke "raw key in export"
grep -q "c2stUFJPQkU3U0VDUkVUVkFMVUU5ODc2" $T/exp.jsonl && broke "base64 of the key in export (not masked)"
held
