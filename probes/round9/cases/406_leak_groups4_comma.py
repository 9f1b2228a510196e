# area 4: key echoed in groups of 4 characters joined by commas
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_groups4_comma", lambda k: ",".join(k[i:i+4] for i in range(0, len(k), 4)), via="reply", keyvia="spec")
