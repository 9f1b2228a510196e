# area 5: turn data fields of wrong types (text a list, quotes a number)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("turn_data_types", "update records set data=json_set(data,'$.text',json('[1]'),'$.argument',json('{}'),'$.quotes',5,'$.side','Z') where kind='turn'")
