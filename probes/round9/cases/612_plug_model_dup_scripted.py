# area 6: registers a model backend named "scripted" (shadowing the built-in), then raises
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_model_dup_scripted", '''from oversight_bench import hookimpl
@hookimpl
def register_models(register):
    register("scripted", object)
    raise RuntimeError("models boom")''')
