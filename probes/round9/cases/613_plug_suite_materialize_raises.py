# area 6: a plugin's transcript suite whose materialize() raises (its source file is missing): `list suites`
# must list the others and name the broken one in one warning, not end in a traceback
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_suite_materialize_raises", '''
from oversight_bench import hookimpl
class S:
    name = "p11suite"
    version = 1
    description = "a suite whose data is gone"
    source = "nowhere"
    def materialize(self):
        raise FileNotFoundError("/data/p11suite.csv")
@hookimpl
def register_suites(register):
    register(S())
''', commands=(("list", "plugins"), ("list", "suites")), run=False)
