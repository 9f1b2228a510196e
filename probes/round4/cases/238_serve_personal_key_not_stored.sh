#!/bin/bash
# area: web/secrets. serve --judges alice: the personal link's key is printed once, stored only hashed (not in the study folder), and not in the server log twice
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
P=$(freeport); bg_cli s.log serve --from r --output st --port $P --judges alice; waitport $P || broke "serve not started: $(tail -1 s.log)"
sleep 0.5; key=$(grep -o 'key=[A-Za-z0-9_-]*' s.log | head -1 | cut -d= -f2)
[ -n "$key" ] || broke "setup: no personal link printed: $(tail -2 s.log)"
python -c "import httpx;httpx.get('http://127.0.0.1:$P/?key=$key')" >/dev/null 2>&1
grep -ralF "$key" st && broke "personal link key stored in plain text in the study folder"
held
