# area 4: key echoed as its UTF-8 bytes in decimal, comma-joined (a byte list)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_decimal_bytes", lambda k: ",".join(str(b) for b in k.encode()), via="reply", keyvia="spec")
