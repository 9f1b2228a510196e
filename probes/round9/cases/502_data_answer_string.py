# area 5: a decision's answer is a string 'two', correct a string
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("data_answer_string", "update records set data=json_set(data,'$.answer','two','$.correct','yes') where kind='decision'")
