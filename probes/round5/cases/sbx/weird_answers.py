x = []; x.append(x)
import sys
sys.set_int_max_str_digits(0) if hasattr(sys, "set_int_max_str_digits") else None
result = [10 ** 100000, float("nan"), "s" * 50_000_000, x]
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT not r.transient and el < 12 and len(str(r.answer)) < 100000
