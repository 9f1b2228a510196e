# Area 6 (plugins): a plugin whose register_tasks hook raises a one-line BenchError
from plugins import *
check_plugin("p04", HEAD + r'''
from oversight_bench.api import BenchError
@hookimpl
def register_tasks(register):
    raise BenchError('my task pack is misconfigured')
''')
