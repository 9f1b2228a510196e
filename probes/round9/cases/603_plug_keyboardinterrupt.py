# area 6: module raises KeyboardInterrupt at import
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_keyboardinterrupt", '''raise KeyboardInterrupt''')
