# area 5: meta identity is not JSON
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("identity_garbage", "update meta set value='{not json' where key='identity'")
