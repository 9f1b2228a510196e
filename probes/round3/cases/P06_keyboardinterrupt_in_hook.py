# Area 6 (plugins): a plugin whose register_models hook raises KeyboardInterrupt
from plugins import *
check_plugin("p06", HEAD + r'''
@hookimpl
def register_models(register):
    raise KeyboardInterrupt('hook')
''')
