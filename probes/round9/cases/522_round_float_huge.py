# area 5: turn round 1e30 and created 'yesterday'
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("round_float_huge", "update records set round=1e30, created='yesterday' where kind='turn'")
