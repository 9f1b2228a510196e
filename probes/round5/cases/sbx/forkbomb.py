import os
while True:
    try: os.fork()
    except OSError: pass
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.status != "ok" and not r.transient and el < 12
