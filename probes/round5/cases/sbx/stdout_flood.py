import sys
for i in range(200):
    sys.stdout.write("z" * (1 << 20))
result = 1
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT len(r.stdout) <= 8000 and el < 12
