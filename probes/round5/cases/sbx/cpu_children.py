import os, signal
try:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
except Exception as e:
    pass
for i in range(4):
    if os.fork() == 0:
        while True: pass
import time
t = time.time()
while time.time() - t < 6: pass
result = 1
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.status != "ok" and el < 9
