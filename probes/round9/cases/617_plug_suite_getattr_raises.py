# area 6: a registered suite whose every attribute but name raises (description, version, materialize) when `list suites` reads it
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_suite_getattr_raises", '''from oversight_bench import hookimpl
class S:
    name = "p11suite"
    def __getattr__(self, k): raise RuntimeError(f"suite {k} boom")
@hookimpl
def register_suites(register):
    register(S())''', commands=(("list", "plugins"), ("list", "suites")))
