#!/bin/bash
# area: servers/secrets. Server redirects to another (echo) server: key must not be forwarded / echo stored.
. "$(dirname "$0")/../lib.sh"
fake echo; P2=$PORT
fake redirect "http://127.0.0.1:$P2/v1/chat/completions"
export OPENAI_API_KEY=sk-RedirSecret55443322110
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=0,timeout=5"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; echo "$out" > so.txt
leakscan RedirSecret55443322110 r so.txt
held "rc=$rc"
