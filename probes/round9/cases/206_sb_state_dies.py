# area 2: state dies with the sandbox: files in /tmp, /dev/shm and a background process of program 1 are
# invisible to program 2 (run after it), and no process of the sandbox uid survives
import os, sys, subprocess; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
p1 = r'''
import os, time
open("/tmp/p11mark", "w").write("x"); open("/dev/shm/p11mark", "w").write("x")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in range(0, 256):
            try: os.close(fd)
            except OSError: pass
        time.sleep(120)
    os._exit(0)
ans = os.getuid()
'''
p2 = "import os\nans = ','.join(p for p in ('/tmp/p11mark', '/dev/shm/p11mark') if os.path.exists(p)) or 'clean'\n"
rs1, _ = sandbox([p1], timeout=5)
rs2, _ = sandbox([p2], timeout=5)
uid = rs1[0]["answer"]
left = subprocess.run(["ps", "-eo", "uid,pid,cmd"], capture_output=True, text=True).stdout
alive = [l for l in left.splitlines() if uid is not None and l.split()[0] == str(int(uid))]
if rs2[0]["answer"] != "clean":
    broke(f"program 2 sees program 1's files: {rs2[0]['answer']}")
if alive:
    broke(f"a process of sandbox uid {uid} outlived its sandbox: {alive[:2]}")
held(f"p1 uid {uid}, {rs1[0]['status']}; p2 sees {rs2[0]['answer']}; no process left")
