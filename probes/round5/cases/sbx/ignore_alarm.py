import signal, time
for s in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):
    signal.signal(s, signal.SIG_IGN)
time.sleep(100)
result = 1
#LIMITS {"timeout": 2, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.status != "ok" and el < 6
