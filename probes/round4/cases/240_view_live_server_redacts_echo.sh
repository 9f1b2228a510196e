#!/bin/bash
# area: servers/web/secrets. run against an echoing server, then the live view server's list and room pages: no key
. "$(dirname "$0")/../lib.sh"
fake echo
export OPENAI_API_KEY=sk-LiveViewSecret24681357
out=$(srun r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1?apikey=QqLiveQuery97531" 2>&1) || broke "setup"
P=$(freeport); bg_cli v.log view r --port $P; waitport $P || broke "view not started"
python - $P > pages.txt <<'PY'
import httpx, sys, re
b = f"http://127.0.0.1:{sys.argv[1]}"
t = httpx.get(b + "/").text; print(t)
for l in sorted(set(re.findall(r'href="(/[^"#]+)"', t)))[:15]:
    print(httpx.get(b + l).text)
PY
grep -q ECHO pages.txt || grep -q "Answer" pages.txt || broke "setup: pages show no replies"
leakscan LiveViewSecret24681357 pages.txt v.log; leakscan QqLiveQuery97531 pages.txt v.log
held
