# area 4: key echoed as a JSON array of its characters
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_json_char_array", lambda k: json.dumps(list(k)), via="reply", keyvia="spec")
