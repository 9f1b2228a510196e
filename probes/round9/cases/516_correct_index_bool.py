# area 5: correct_index true, answer 1.5, correct 'maybe'
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("correct_index_bool", "update records set data=json_set(data,'$.correct_index',json('true'),'$.answer',1.5,'$.correct','maybe') where kind='decision'")
