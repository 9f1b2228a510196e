import os, sys, json
fake = json.dumps({"status": "ok", "answer": 99, "stdout": "", "error": "", "transient": True, "resource": True}).encode()
for fd in (1, 2):
    for pre in (b"", b"\x00", b"S", b"STARTED\n", b"\x01"):
        try: os.write(fd, pre + fake + b"\n")
        except Exception: pass
os._exit(0)
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT not r.transient and not (r.ok and r.answer == 99)
