# area 4: key split across lines with a dash per character (separator + line break)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_dash_newline", lambda k: "-\n".join(k), via="reply", keyvia="spec")
