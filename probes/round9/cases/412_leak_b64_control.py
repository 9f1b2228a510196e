# area 4: control: key base64
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_b64_control", lambda k: __import__("base64").b64encode(k.encode()).decode(), via="reply", keyvia="spec")
