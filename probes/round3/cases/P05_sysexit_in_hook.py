# Area 6 (plugins): a plugin whose register_protocols hook calls sys.exit()
from plugins import *
check_plugin("p05", HEAD + r'''
import sys
@hookimpl
def register_protocols(register):
    sys.exit('bye from a hook')
''')
