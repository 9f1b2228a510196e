# area 4: key joined by alternating separators - and _
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_alternating_sep", lambda k: "".join(c + ("-" if i % 2 else "_") for i, c in enumerate(k)), via="reply", keyvia="spec")
