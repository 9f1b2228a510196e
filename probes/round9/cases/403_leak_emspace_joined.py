# area 4: key (env OPENAI_API_KEY) echoed with EM SPACE U+2003 between characters
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("leak_emspace_joined", lambda k: "\u2003".join(k), via="reply", keyvia="env")
