# area 4: control -- key echoed verbatim in the reply is masked everywhere
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from leaklib import *
echo_case("verbatim echo", lambda k: k)
