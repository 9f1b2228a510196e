# area 6: module calls sys.exit(3) at import
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_sysexit_import", '''import sys
sys.exit(3)''')
