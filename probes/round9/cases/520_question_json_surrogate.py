# area 5: a question's data text holds a lone surrogate escape
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("question_json_surrogate", "update questions set data=replace(data, '\"question\":\"', '\"question\":\"\\ud800')")
