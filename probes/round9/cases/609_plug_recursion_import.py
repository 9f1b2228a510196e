# area 6: module recursing forever at import (RecursionError)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_recursion_import", '''def f(): return f()
f()''')
