# Area 6 (plugins): a plugin whose register_commands hook raises a custom BaseException subclass
from plugins import *
check_plugin("p07", HEAD + r'''
class Boom(BaseException):
    pass
@hookimpl
def register_commands(cli):
    raise Boom('commands hook')
''')
