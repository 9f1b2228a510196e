# area 5: a turn's seq is text 'abc' and round is -5
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("seq_text", "update records set seq='abc', round=-5 where kind='turn' and id=(select min(id) from records where kind='turn')")
