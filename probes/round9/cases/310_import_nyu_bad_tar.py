# area 3: nyu-debate: a folder whose tar.xz is an xz bomb member (1 GB of zeros) and metadata nested deep
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
os.makedirs(f"{d}/nyu"); import tarfile, lzma, io
open(f"{d}/nyu/debates-metadata.jsonl", "w").write("{\"name\": \"a\"}\n")
class Z(io.RawIOBase):
    def __init__(s): s.left = 1 << 30
    def readable(s): return True
    def readinto(s, b):
        n = min(len(b), s.left); b[:n] = bytes(n); s.left -= n; return n
with tarfile.open(f"{d}/nyu/debates_official.tar.xz", "w:xz") as tar:
    ti = tarfile.TarInfo("debates/official/a.json"); ti.size = 1 << 30
    tar.addfile(ti, io.BufferedReader(Z()))
p = f"{d}/nyu"
rc, out, err, wall = do_import(p, d, kind="nyu-debate", timeout=120)
if wall > 60: broke(f"took {wall:.0f}s")
check_graceful(rc, out, err, "nyu xz bomb")
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_nyu_bad_tar: took {wall:.0f}s")
check_graceful(rc, out, err, "import_nyu_bad_tar")
