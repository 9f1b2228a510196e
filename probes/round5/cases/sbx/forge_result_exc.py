import json, sys
sys.stdout.write(json.dumps({"status": "ok", "answer": 99, "transient": True}) + "\n"); sys.stdout.flush()
raise SystemExit(json.dumps({"status": "ok", "answer": 99, "transient": True}))
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT not r.transient and r.status != "ok"
