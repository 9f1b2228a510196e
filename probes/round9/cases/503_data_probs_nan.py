# area 5: a decision's probs hold NaN and 1e999 (invalid JSON numbers)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("data_probs_nan", "update records set data=replace(data,'\"probs\":null','\"probs\":[NaN,1e999]') where kind='decision'")
