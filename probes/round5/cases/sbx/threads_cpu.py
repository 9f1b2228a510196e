import threading, hashlib, time
data = b"a" * (64 << 20)
def burn():
    for i in range(40): hashlib.sha256(data).digest()
ts = [threading.Thread(target=burn) for _ in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
result = 1
#LIMITS {"timeout": 6, "cpu_seconds": 1, "memory_mb": 256, "max_output": 4000}
#EXPECT r.status != "ok" and el < 9
