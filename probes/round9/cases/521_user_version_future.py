# area 5: PRAGMA user_version=999 (a future store format)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("user_version_future", "PRAGMA user_version=999")
