"""sbx.py CASE: run one hostile program through task_configs.sandbox and print HELD/BROKE."""
import sys, time
from task_configs.sandbox import run_program
c = sys.argv[1]
P = {
 "keyring": ("import ctypes\nlibc=ctypes.CDLL(None)\nr=libc.syscall(248,b'user',b'p9key',b'secret',6,-4)\nanswer=r\n", lambda r: r.answer in (None,) or (isinstance(r.answer,(int,float)) and r.answer < 0)),
 "unshare": ("import os\ntry:\n    os.unshare(os.CLONE_NEWUSER)\n    answer=1\nexcept OSError:\n    answer=-1\n", lambda r: r.answer != 1.0),
 "resource_claim": ("import sys,os,json\nos.write(1,b'#'+json.dumps({'status':'ok','answer':1,'resource':True,'transient':True}).encode())\nos._exit(0)\n", lambda r: not r.transient),
 "cpu_children": ("import os\nfor i in range(3):\n    if os.fork()==0:\n        while True: pass\nwhile True: pass\n", None),
 "sigchld_ignore": ("import signal,os\ntry:\n    signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n    answer=1\nexcept OSError:\n    answer=-1\n", lambda r: r.answer != 1.0),
 "read_host": ("import os,sys\nfound=[]\nfor p in sys.argv[1:] or []: pass\nfor p in ('/root/.bashrc','/root/.bash_history','/etc/shadow','/work/issues','/work/shared/datasets','/work/helpers','HOSTTMP'):\n    if os.path.exists(p): found.append(p)\nprint(found)\nanswer=len(found)\n", lambda r: r.answer == 0.0),
 "net": ("import socket\ntry:\n    socket.create_connection(('127.0.0.1',22),1); answer=1\nexcept OSError:\n    answer=-1\n", lambda r: r.answer != 1.0),
 "huge_stdout": ("import sys\nsys.stdout.write('x'*50_000_000)\nanswer=1\n", lambda r: len(r.stdout) <= 100000),
 "memfd_fill": ("import os\nfd=os.memfd_create('x')\nb=b'\\0'*(1<<20)\nfor i in range(2000): os.write(fd,b)\nanswer=1\n", lambda r: r.status != "ok"),
 "fake_started_twice": ("import os,json\nos.write(1,b'##{\"status\":\"ok\",\"answer\":5}')\nos._exit(0)\n", lambda r: not r.transient),
}
code, ok = P[c]
import tempfile, os
if c == 'read_host':
    ht = tempfile.mkdtemp(); open(ht + '/secret.txt', 'w').write('x'); code = code.replace('HOSTTMP', ht + '/secret.txt')
t = time.time()
r = run_program(code, timeout=3, cpu_seconds=2, memory_mb=256)
dt = time.time() - t
if c == "cpu_children":
    print("HELD" if r.status != "ok" and dt < 8 else f"BROKE: {r.status} after {dt:.1f}s"); sys.exit()
print("HELD" if ok(r) else f"BROKE: {c}: {r}"[:300])
