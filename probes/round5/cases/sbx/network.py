import socket
got = 0
for addr in (("127.0.0.1", 22), ("127.0.0.1", 8000), ("1.1.1.1", 53)):
    try:
        s = socket.create_connection(addr, timeout=1); got += 1; s.close()
    except OSError: pass
try:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b"x", ("8.8.8.8", 53)); got += 10
except OSError: pass
result = got
#LIMITS {"timeout": 3, "cpu_seconds": 2, "memory_mb": 256, "max_output": 4000}
#EXPECT r.ok and r.answer == 0
