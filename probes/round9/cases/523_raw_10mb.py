# area 5: a decision's raw text is 10 MB
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("raw_10mb", "update records set data=json_set(data,'$.raw', hex(zeroblob(5000000))) where kind='decision' and id=(select min(id) from records where kind='decision')")
