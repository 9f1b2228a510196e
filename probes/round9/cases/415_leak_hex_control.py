# area 4: control: 400 error echoing the key hex, colon-joined
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_hex_control", lambda k: ":".join(f"{b:02x}" for b in k.encode()), via="error", keyvia="env")
