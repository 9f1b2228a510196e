# area 4: key echoed as octal byte escapes \163\153...
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_octal_escapes", lambda k: "".join("\\\\%03o" % b for b in k.encode()), via="reply", keyvia="spec")
