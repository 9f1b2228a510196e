# area 6: register_protocols hook raises ValueError
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_hook_raises", '''from oversight_bench import hookimpl
@hookimpl
def register_protocols(register):
    raise ValueError("hook boom")''')
