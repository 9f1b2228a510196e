# area 6: entry point names a missing attribute (module:nothing)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_missing_attr", '''X = 1''', ep="p11plug:nothing")
