import os, resource
bad = 0
if os.getuid() == 0 or os.geteuid() == 0: bad += 1
soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
try:
    resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)); bad += 10
except (ValueError, OSError): pass
result = bad
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.ok and r.answer == 0
