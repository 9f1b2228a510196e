x = []
for i in range(2000):
    x.append(bytearray(1024 * 1024))
result = len(x)
#LIMITS {"timeout": 5, "cpu_seconds": 4, "memory_mb": 128, "max_output": 4000}
#EXPECT r.status != "ok" and not r.transient and el < 12
