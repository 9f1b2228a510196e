import os
n = 0
for d in ("/dev/shm", "/tmp"):
    try:
        with open(d + "/big", "wb") as f:
            for i in range(2048): f.write(b"x" * (1 << 20)); n += 1
    except OSError: pass
try:
    fd = os.memfd_create("m")
    for i in range(2048): os.write(fd, b"y" * (1 << 20)); n += 1
except OSError: pass
result = n
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT not r.transient and el < 12
