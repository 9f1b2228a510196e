# Area 6 (plugins): a plugin raising KeyboardInterrupt at import
from plugins import *
check_plugin("p02", HEAD + r'''
raise KeyboardInterrupt('plugin import')
''')
