# area 5: a decision's answers list has 5 entries / is null
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("answers_wrong_length", ["update records set data=json_set(data,'$.answers',json('[1,2,3,4,5]')) where kind='decision' and id % 2 = 0", "update records set data=json_set(data,'$.answers',json('null')) where kind='decision' and id % 2 = 1"])
