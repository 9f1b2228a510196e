# area 4: 400 error message echoing the key with NBSP between characters (stderr/logs)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_error_nbsp", lambda k: "\u00a0".join(k), via="error", keyvia="spec")
