# area 6: hookimpl with an argument the spec lacks
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_bad_hook_signature", '''from oversight_bench import hookimpl
@hookimpl
def register_protocols(register, extra):
    pass''')
