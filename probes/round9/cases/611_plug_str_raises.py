# area 6: raises an exception whose __str__ raises
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_str_raises", '''class E(Exception):
    def __str__(self): raise ValueError("str boom")
raise E()''')
