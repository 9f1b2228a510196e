# area 5: a decision's data is a BLOB of invalid UTF-8
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("data_blob", "update records set data=x'fffe007b' where kind='decision' and id=(select min(id) from records where kind='decision')")
