# area 5: skipped row with count -1e18 and reason null
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("skipped_bad", "insert into skipped values ('arith', NULL, -1000000000000000000)")
