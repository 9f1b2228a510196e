# area 5: a decision's answer is 7 and correct_index 99
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("answer_out_of_range", "update records set data=json_set(data,'$.answer',7,'$.correct_index',99) where kind='decision'")
