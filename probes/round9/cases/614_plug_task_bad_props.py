# area 6: a registered task whose attributes raise when  reads them
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_task_bad_props", '''from oversight_bench import hookimpl
class T:
    name = "p11task"
    def __getattr__(self, k): raise RuntimeError(f"task {k} boom")
@hookimpl
def register_tasks(register):
    register(T())''', commands=(("list", "plugins"), ("list", "tasks")))
