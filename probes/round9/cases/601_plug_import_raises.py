# area 6: entry point module raises at import
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_import_raises", '''raise RuntimeError("boom at import")''')
