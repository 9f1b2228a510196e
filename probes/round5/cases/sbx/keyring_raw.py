import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
ok = 0
if libc.syscall(248, b"user", b"probe7", b"secret", 6, -3) >= 0: ok += 1   # add_key to KEY_SPEC_USER_KEYRING
if libc.syscall(250, 1, None) >= 0: ok += 10  # keyctl JOIN_SESSION_KEYRING
if libc.syscall(249, b"user", b"probe7", None, 0) >= 0: ok += 100  # request_key
result = ok
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.ok and r.answer == 0
