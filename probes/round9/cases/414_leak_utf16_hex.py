# area 4: key echoed as hex of its UTF-16LE bytes
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_utf16_hex", lambda k: k.encode("utf-16-le").hex(), via="reply", keyvia="spec")
