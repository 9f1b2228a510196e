# area 6: register_tasks hook calls sys.exit()
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_hook_sysexit", '''import sys
from oversight_bench import hookimpl
@hookimpl
def register_tasks(register):
    sys.exit()''')
