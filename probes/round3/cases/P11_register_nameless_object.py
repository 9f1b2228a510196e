# Area 6 (plugins): a plugin registering a task object without a name attribute and a protocol None
from plugins import *
check_plugin("p11", HEAD + r'''
@hookimpl
def register_tasks(register):
    register(object())
@hookimpl
def register_protocols(register):
    register(None)
''')
