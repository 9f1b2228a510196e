#!/bin/bash
# area: servers/secrets. a key with / + = & % echoed percent-encoded (lower-case hex), as JSON \u escapes and as HTML entities
. "$(dirname "$0")/../lib.sh"
cat > hook.py <<'PY'
from urllib.parse import quote
def hook(h, body):
    k = h.headers.get("Authorization", "")[7:]
    return h.send_json(completion("Answer: 1 PCT=" + quote(k, safe="").lower() + " UESC=" + "".join("\\u%04x" % ord(c) for c in k) + " HTML=" + "".join("&#%d;" % ord(c) for c in k)))
PY
FAKE_HOOK=$W/hook.py fake ok
export OPENAI_API_KEY='Zx9/Qw+Er=Ty&Ui%Op12Kk'
out=$(srun r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1" 2>&1); rc=$?; tb_check "$out"; ob export r > e.jsonl 2>&1
cp e.jsonl /tmp/p6_221.jsonl; grep -q PCT= e.jsonl || broke "setup: no echo stored rc=$rc"
p=$(python -c "from urllib.parse import quote;print(quote('Zx9/Qw+Er=Ty&Ui%Op12Kk',safe='').lower())")
grep -qiF "$p" e.jsonl && broke "percent-encoded (lower-case hex) key stored"
why=""
grep -qF 'u005a\\u0078\\u0039' e.jsonl && why="$why literal-\\u-escaped key;"
grep -qF '&#90;&#120;&#57;&#47;' e.jsonl && why="$why HTML-entity (&#NN;) key;"
[ -n "$why" ] && broke "key stored in an encoding the redaction misses:$why (results.sqlite/export)"
held
