# area 4: control: key upper-cased (env key)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_upper_control", lambda k: k.upper(), via="reply", keyvia="env")
