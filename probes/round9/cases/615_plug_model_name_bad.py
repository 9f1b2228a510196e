# area 6: register_model_names registers a model whose attributes raise when  reads them
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_model_name_bad", '''from oversight_bench import hookimpl
class M:
    def __getattr__(self, k): raise RuntimeError(f"model {k} boom")
@hookimpl
def register_model_names(register):
    register("p11model", M())''', commands=(("list", "plugins"), ("list", "models")))
