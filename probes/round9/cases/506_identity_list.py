# area 5: meta identity is a JSON list
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("identity_list", "update meta set value='[1]' where key='identity'")
