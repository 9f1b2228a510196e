# area 4: key echoed reversed
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_reversed", lambda k: k[::-1], via="reply", keyvia="spec")
