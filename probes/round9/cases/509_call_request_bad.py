# area 5: calls.request/response are not JSON
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("call_request_bad", "update calls set request='{', response='[\"x\"'")
