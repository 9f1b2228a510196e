# area 5: a decision's data is a JSON list
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("data_not_object", "update records set data='[1,2,3]' where kind='decision' and id=(select min(id) from records where kind='decision')")
