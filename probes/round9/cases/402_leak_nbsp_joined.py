# area 4: key echoed with NO-BREAK SPACE (U+00A0, whitespace) between its characters
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_nbsp_joined", lambda k: "\u00a0".join(k), via="reply", keyvia="spec")
