#!/bin/bash
# area: sandbox/build-task. bwrap passes the start-up probe, then fails to start every program (a fake bwrap on PATH): no permanent no_pair row
. "$(dirname "$0")/../lib.sh"

cat > prog.py <<'PY'
def solution():
    return 42
PY
mkdir fb; cat > fb/bwrap <<'SH'
#!/bin/bash
n=$(cat /tmp/p6_fbcount.$PPID 2>/dev/null || echo 0); echo $((n+1)) > /tmp/p6_fbcount.$PPID
[ $n -lt 2 ] && exec /usr/bin/bwrap "$@"
echo "bwrap: simulated failure" >&2; exit 1
SH
chmod +x fb/bwrap; export PATH=$W/fb:$PATH
fake prog $W/prog.py
s=$(date +%s); out=$(T=60 ob build-task gsm8kqa --model "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=10" --k 2 --limit 1 --output out.jsonl 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "build-task hung"
rows=$(cat out.jsonl 2>/dev/null)
grep -q no_pair <<<"$rows" && broke "transient sandbox failure written as permanent no_pair row"
held "rc=$rc ${e}s $(tail -1 <<<"$out" | cut -c1-90)"
