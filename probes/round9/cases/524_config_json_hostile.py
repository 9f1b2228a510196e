# area 5: config.json replaced by a 3-level list, results.json by NaN
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
import glob
_orig = mkrun
def mk(d, **kw):
    r = _orig(d, **kw)
    open(f"{r}/config.json", "w").write("[[[1]]]")
    open(f"{r}/results.json", "w").write("NaN")
    return r
import storelib; storelib.mkrun = mk
store_case("config_json_hostile", [])
