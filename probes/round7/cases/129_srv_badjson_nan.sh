#!/usr/bin/env bash
# replies with NaN usage, non-list choices, null content, content as a list: one line per job, no traceback
. "$(dirname "$0")/../lib.sh"
for body in '{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1"}}],"usage":{"prompt_tokens":NaN,"completion_tokens":1e999}}' \
  '{"choices":{"0":1}}' '{"choices":[{"index":0,"message":{"role":"assistant","content":null}}]}' \
  '{"choices":[{"index":"x","message":{"content":["Answer: 1"]}}]}' '{"choices":[{"index":0,"message":{"content":"Answer: 1\ud800"}}]}' '[]' 'null'; do
  srv weird "$body"
  ob run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=5,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o$RANDOM" >/dev/null 2>"$T/e"; rc=$?
  grep -q Traceback "$T/e" && broke "traceback for $body: $(grep -v '^ ' $T/e | tail -1)"
done
held
