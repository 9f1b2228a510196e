import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
got = 0
if libc.unshare(0x10000000) == 0: got += 1
pid = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER|SIGCHLD)
if pid == 0: os._exit(0)
if pid > 0: got += 10
args = (ctypes.c_uint64 * 11)(0x10000000, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0)
pid3 = libc.syscall(435, ctypes.byref(args), 88)
if pid3 == 0: os._exit(0)
if pid3 > 0: got += 100
if libc.unshare(0x20000000 | 0x40000000) == 0: got += 1000  # CLONE_NEWCGROUP|CLONE_NEWNET: harmless but shows privilege
result = got
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.ok and r.answer == 0
